"""``paddle.distribution`` under ferrograd: the same classes as
:mod:`ferrograd.distributions` (``Normal(loc, scale)``, ``.sample(shape)``, ``.log_prob``,
``.entropy``, ``.prob`` / ``.probs``, ``.kl_divergence(other)``), except ``Categorical``,
which follows Paddle's ``Categorical(logits)`` (see ``distributions/_paddle.py``)."""

from __future__ import annotations

from .distributions import Bernoulli as Bernoulli
from .distributions import Beta as Beta
from .distributions import Binomial as Binomial
from .distributions import Cauchy as Cauchy
from .distributions import Chi2 as Chi2
from .distributions import Dirichlet as Dirichlet
from .distributions import Distribution as Distribution
from .distributions import Exponential as Exponential
from .distributions import Gamma as Gamma
from .distributions import Geometric as Geometric
from .distributions import Independent as Independent
from .distributions import Laplace as Laplace
from .distributions import LogNormal as LogNormal
from .distributions import Multinomial as Multinomial
from .distributions import MultivariateNormal as MultivariateNormal
from .distributions import Normal as Normal
from .distributions import Poisson as Poisson
from .distributions import StudentT as StudentT
from .distributions import Uniform as Uniform
from .distributions import constraints as constraints
from .distributions import kl_divergence as kl_divergence
from .distributions import register_kl as register_kl
from .distributions._paddle import Categorical as Categorical

__all__ = [
    "Distribution",
    "Normal",
    "Uniform",
    "Exponential",
    "Laplace",
    "LogNormal",
    "Cauchy",
    "Gamma",
    "Chi2",
    "Beta",
    "Dirichlet",
    "StudentT",
    "Bernoulli",
    "Categorical",
    "Geometric",
    "Poisson",
    "Binomial",
    "Multinomial",
    "MultivariateNormal",
    "Independent",
    "kl_divergence",
    "register_kl",
    "constraints",
]

from ._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
