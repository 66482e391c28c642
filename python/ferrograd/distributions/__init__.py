"""``ferrograd.distributions`` (``torch.distributions``) and, through
``ferrograd.distribution``, Paddle's ``paddle.distribution``: probability distributions
built from differentiable ferrograd ops, sampled with ferrograd's generator.

``rsample`` (where the distribution has one) and ``log_prob`` / ``entropy`` /
``kl_divergence`` carry gradients to the parameters; ``sample`` draws from the default
generator, so ``manual_seed`` / ``seed`` reproduce it. Parameters are validated by default
(``validate_args``; ``Distribution.set_default_validate_args(False)`` turns it off).
See docs/distributions.md.
"""

from __future__ import annotations

from . import constraint_registry as constraint_registry
from . import constraints as constraints
from . import kl_cross as _kl_cross  # noqa: F401  (registers the cross-family pairs)
from . import kl_more as _kl_more  # noqa: F401  (registers the new pairs)
from . import transforms as transforms
from .bounded import ContinuousBernoulli as ContinuousBernoulli
from .bounded import FisherSnedecor as FisherSnedecor
from .bounded import Kumaraswamy as Kumaraswamy
from .bounded import NegativeBinomial as NegativeBinomial
from .constraint_registry import biject_to as biject_to
from .constraint_registry import transform_to as transform_to
from .continuous import Cauchy as Cauchy
from .continuous import Exponential as Exponential
from .continuous import Laplace as Laplace
from .continuous import LogNormal as LogNormal
from .continuous import Normal as Normal
from .continuous import Uniform as Uniform
from .counts import Binomial as Binomial
from .counts import Multinomial as Multinomial
from .discrete import Bernoulli as Bernoulli
from .discrete import Categorical as Categorical
from .discrete import Geometric as Geometric
from .discrete import OneHotCategorical as OneHotCategorical
from .discrete import Poisson as Poisson
from .distribution import Distribution as Distribution
from .exp_family import ExponentialFamily as ExponentialFamily
from .extreme_value import Gumbel as Gumbel
from .extreme_value import HalfCauchy as HalfCauchy
from .extreme_value import HalfNormal as HalfNormal
from .extreme_value import Pareto as Pareto
from .extreme_value import Weibull as Weibull
from .gamma_family import Beta as Beta
from .gamma_family import Chi2 as Chi2
from .gamma_family import Dirichlet as Dirichlet
from .gamma_family import Gamma as Gamma
from .gamma_family import StudentT as StudentT
from .kl import kl_divergence as kl_divergence
from .kl import register_kl as register_kl
from .lkj_wishart import LKJCholesky as LKJCholesky
from .lkj_wishart import Wishart as Wishart
from .logistic_normal import LogisticNormal as LogisticNormal
from .lowrank_mixture import LowRankMultivariateNormal as LowRankMultivariateNormal
from .lowrank_mixture import MixtureSameFamily as MixtureSameFamily
from .multivariate import Independent as Independent
from .multivariate import MultivariateNormal as MultivariateNormal
from .pareto_inverse_gamma import GeneralizedPareto as GeneralizedPareto
from .pareto_inverse_gamma import InverseGamma as InverseGamma
from .pareto_inverse_gamma import (
    OneHotCategoricalStraightThrough as OneHotCategoricalStraightThrough,
)
from .relaxed import ExpRelaxedCategorical as ExpRelaxedCategorical
from .relaxed import LogitRelaxedBernoulli as LogitRelaxedBernoulli
from .relaxed import RelaxedBernoulli as RelaxedBernoulli
from .relaxed import RelaxedOneHotCategorical as RelaxedOneHotCategorical
from .transformed import TransformedDistribution as TransformedDistribution

# PyTorch re-exports every transform here (listed by name: type checkers read __all__)
from .transforms import AbsTransform as AbsTransform
from .transforms import AffineTransform as AffineTransform
from .transforms import CatTransform as CatTransform
from .transforms import ChainTransform as ChainTransform
from .transforms import ComposeTransform as ComposeTransform
from .transforms import CorrCholeskyTransform as CorrCholeskyTransform
from .transforms import CumulativeDistributionTransform as CumulativeDistributionTransform
from .transforms import ExpTransform as ExpTransform
from .transforms import IndependentTransform as IndependentTransform
from .transforms import LowerCholeskyTransform as LowerCholeskyTransform
from .transforms import PositiveDefiniteTransform as PositiveDefiniteTransform
from .transforms import PowerTransform as PowerTransform
from .transforms import ReshapeTransform as ReshapeTransform
from .transforms import SigmoidTransform as SigmoidTransform
from .transforms import SoftmaxTransform as SoftmaxTransform
from .transforms import SoftplusTransform as SoftplusTransform
from .transforms import StackTransform as StackTransform
from .transforms import StickBreakingTransform as StickBreakingTransform
from .transforms import TanhTransform as TanhTransform
from .transforms import Transform as Transform
from .transforms import identity_transform as identity_transform
from .von_mises import VonMises as VonMises

__all__ = [
    "Distribution",
    "ExponentialFamily",
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
    "OneHotCategorical",
    "Geometric",
    "Poisson",
    "Binomial",
    "Multinomial",
    "MultivariateNormal",
    "Independent",
    "TransformedDistribution",
    "Gumbel",
    "Weibull",
    "Pareto",
    "HalfNormal",
    "HalfCauchy",
    "ContinuousBernoulli",
    "FisherSnedecor",
    "Kumaraswamy",
    "NegativeBinomial",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "LogitRelaxedBernoulli",
    "RelaxedBernoulli",
    "ExpRelaxedCategorical",
    "RelaxedOneHotCategorical",
    "VonMises",
    "LogisticNormal",
    "LKJCholesky",
    "Wishart",
    "GeneralizedPareto",
    "InverseGamma",
    "OneHotCategoricalStraightThrough",
    "kl_divergence",
    "register_kl",
    "constraints",
    "transforms",
    "constraint_registry",
    "biject_to",
    "transform_to",
    "Transform",
    "ComposeTransform",
    "ChainTransform",
    "IndependentTransform",
    "ExpTransform",
    "AbsTransform",
    "AffineTransform",
    "SigmoidTransform",
    "TanhTransform",
    "PowerTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
    "SoftplusTransform",
    "ReshapeTransform",
    "CatTransform",
    "StackTransform",
    "CumulativeDistributionTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "CorrCholeskyTransform",
    "identity_transform",
]

# the peers' distributions ferrograd lacks raise an AttributeError that says so
from .._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
