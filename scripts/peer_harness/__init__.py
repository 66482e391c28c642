"""Stand-ins for the peers' test infrastructure, used by ``scripts/peer_tests.py``.

Nothing here is part of ferrograd: these modules replace the test harness that the peers'
own test files import (``torch.testing._internal.common_utils``) and the few Paddle
test-scaffolding names they use (``paddle.base.dygraph.guard`` ...), so that the test
bodies run unchanged against ferrograd.
"""
