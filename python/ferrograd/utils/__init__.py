"""``ferrograd.utils``: helpers outside the core API (``torch.utils`` names)."""

from . import checkpoint as checkpoint
