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
from .distributions import ExponentialFamily as ExponentialFamily
from .distributions import Gamma as Gamma
from .distributions import Geometric as Geometric
from .distributions import Gumbel as Gumbel
from .distributions import Independent as Independent
from .distributions import Laplace as Laplace
from .distributions import LKJCholesky as LKJCholesky
from .distributions import LogNormal as LogNormal
from .distributions import Multinomial as Multinomial
from .distributions import MultivariateNormal as MultivariateNormal
from .distributions import Normal as Normal
from .distributions import Poisson as Poisson
from .distributions import StudentT as StudentT
from .distributions import TransformedDistribution as TransformedDistribution
from .distributions import Uniform as Uniform
from .distributions import constraints as constraints
from .distributions import kl_divergence as kl_divergence
from .distributions import register_kl as register_kl
from .distributions import transforms as transform
from .distributions._paddle import Categorical as Categorical
from .distributions._paddle import ContinuousBernoulli as ContinuousBernoulli
from .distributions.transforms import AbsTransform as AbsTransform
from .distributions.transforms import AffineTransform as AffineTransform
from .distributions.transforms import ChainTransform as ChainTransform
from .distributions.transforms import ExpTransform as ExpTransform
from .distributions.transforms import IndependentTransform as IndependentTransform
from .distributions.transforms import PowerTransform as PowerTransform
from .distributions.transforms import ReshapeTransform as ReshapeTransform
from .distributions.transforms import SigmoidTransform as SigmoidTransform
from .distributions.transforms import SoftmaxTransform as SoftmaxTransform
from .distributions.transforms import StackTransform as StackTransform
from .distributions.transforms import StickBreakingTransform as StickBreakingTransform
from .distributions.transforms import TanhTransform as TanhTransform
from .distributions.transforms import Transform as Transform

__all__ = [
    "Distribution",
    "ExponentialFamily",
    "Normal",
    "Uniform",
    "Exponential",
    "Laplace",
    "LKJCholesky",
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
    "Gumbel",
    "ContinuousBernoulli",
    "TransformedDistribution",
    "Transform",
    "AbsTransform",
    "AffineTransform",
    "ChainTransform",
    "ExpTransform",
    "IndependentTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "transform",
    "kl_divergence",
    "register_kl",
    "constraints",
]

from ._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
