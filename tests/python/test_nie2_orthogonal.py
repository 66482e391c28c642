"""``nn.utils.parametrizations.orthogonal(..., use_trivialization=False)``, which
ferrograd refused with NotImplementedError until session 24 (issue #17). Expected values
are PyTorch 2.15's (float64)."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.nn.utils import parametrizations as P

# (shape, map) -> PyTorch's original and weight (flattened) right after registration
ORTHO_REGISTER = {
    ((3, 3), "matrix_exp"): (
        [
            2.764842187284489,
            0.169967142900241,
            -0.504846104599857,
            -0.942222340668658,
            1.063543312709204,
            -0.4902608213407,
            0.186512369422575,
            0.77556587851025,
            2.999858636383415,
        ],
        [
            0.594404395791881,
            0.6568821596230086,
            -0.46388494546848724,
            -0.7840713880524981,
            0.34525539654690973,
            -0.5157817073071364,
            -0.17864902099009,
            0.6703018271825374,
            0.7202638320608872,
        ],
    ),
    ((3, 3), "cayley"): (
        [
            2.764842187284489,
            0.169967142900241,
            -0.504846104599857,
            -0.942222340668658,
            1.063543312709204,
            -0.4902608213407,
            0.186512369422575,
            0.77556587851025,
            2.999858636383415,
        ],
        [
            0.6659819915682105,
            0.6298947507002525,
            -0.39962556217928147,
            -0.734638225070342,
            0.4608016304717015,
            -0.49796439191986286,
            -0.1295170458755816,
            0.6252155311529682,
            0.7696303492149814,
        ],
    ),
    ((3, 3), "householder"): (
        [
            -1.0,
            0.132394436202184,
            0.127906818378559,
            -0.165541105245915,
            -1.0,
            -1.289134877204384,
            0.032768766397893,
            0.323940027020026,
            -1.0,
        ],
        [
            0.9446217434302369,
            0.22340568900231988,
            -0.24037400017518176,
            -0.32191483269267884,
            0.7730748931765479,
            -0.5465583683674724,
            0.06372285564272918,
            0.5936708748637312,
            0.8021809583923494,
        ],
    ),
    ((4, 2), "matrix_exp"): (
        [
            2.764842187284489,
            0.169967142900241,
            -0.504846104599857,
            1.057777659331342,
            -0.936456687290796,
            -0.4902608213407,
            0.186512369422575,
            0.77556587851025,
        ],
        [
            0.4929216908075595,
            0.09619008532888418,
            -0.6047971043710649,
            0.5223550435711509,
            -0.6200592138777152,
            -0.5216607107991221,
            -0.08231184945767228,
            0.667654685259347,
        ],
    ),
    ((4, 2), "cayley"): (
        [
            2.764842187284489,
            0.169967142900241,
            -0.504846104599857,
            1.057777659331342,
            -0.936456687290796,
            -0.4902608213407,
            0.186512369422575,
            0.77556587851025,
        ],
        [
            0.5850979853389031,
            0.13289139745829523,
            -0.5282023611594384,
            0.607974836444582,
            -0.6127093424828304,
            -0.45638705092186926,
            -0.05700767362564966,
            0.6359381530326704,
        ],
    ),
    ((4, 2), "householder"): (
        [
            -1.0,
            -0.181812250550388,
            -0.088057087867802,
            -1.0,
            -0.163340170491195,
            -0.173988013791473,
            0.032532163669349,
            0.307180407030851,
        ],
        [
            0.9314482586906796,
            0.000442127298512048,
            -0.17007770902763805,
            0.778321149336855,
            -0.3154830878694572,
            -0.309485555583127,
            0.06283419087060339,
            0.5462917571259994,
        ],
    ),
    ((2, 4), "matrix_exp"): (
        [
            2.764842187284489,
            0.169967142900241,
            -0.504846104599857,
            -0.942222340668658,
            -0.936456687290796,
            1.5097391786593,
            0.186512369422575,
            0.77556587851025,
        ],
        [
            0.49557136049203476,
            0.47702541680258376,
            -0.3776042972019441,
            -0.6198957760132107,
            0.23076646399497497,
            0.7128055906884039,
            0.1409744858915466,
            0.6471330800586741,
        ],
    ),
    ((2, 4), "cayley"): (
        [
            2.764842187284489,
            0.169967142900241,
            -0.504846104599857,
            -0.942222340668658,
            -0.936456687290796,
            1.5097391786593,
            0.186512369422575,
            0.77556587851025,
        ],
        [
            0.5933706677293574,
            0.4003282425200635,
            -0.36487040286382355,
            -0.5954142574991002,
            0.1666752992345663,
            0.7673943903141481,
            0.12274776994503626,
            0.6068427962108185,
        ],
    ),
    ((2, 4), "householder"): (
        [
            -1.0,
            0.029641989022155,
            -0.08804432689211,
            -0.16432202013846,
            1.063421156881955,
            -1.0,
            0.00326027526463,
            0.139648065556511,
        ],
        [
            0.9311875816645783,
            0.05724424109542419,
            -0.17003011073006027,
            -0.31733664468543044,
            0.03296900941157555,
            0.9626997233303248,
            0.003493020958452678,
            0.2685332119547217,
        ],
    ),
}
ORTHO_ASSIGN = {
    (3, 3): (
        [
            1.0,
            -5.551115123125783e-17,
            -2.220446049250313e-16,
            -0.6340839382201884,
            1.0,
            0.0,
            0.1453638745132108,
            0.47318058303046984,
            -1.0,
        ],
        [
            -0.4052906837491683,
            -0.4070921744251554,
            -0.8185446983445255,
            0.8910722510958139,
            -0.37599000687200945,
            -0.25420809990915916,
            -0.20427849860709832,
            -0.8324106416031604,
            0.5151337872365243,
        ],
    ),
    (4, 2): (
        [
            1.0,
            5.551115123125783e-17,
            -0.3470200562684581,
            1.0,
            -0.5778946539381015,
            -0.13141899208986438,
            0.1330422902602316,
            0.29964730259172867,
        ],
        [
            -0.35861682886156565,
            -0.09602350568105608,
            0.47146728839881463,
            -0.7732656185894041,
            0.7851374021494353,
            0.2929114053641608,
            -0.18075349449783581,
            -0.5541143185948715,
        ],
    ),
    (2, 4): (
        [
            1.0,
            -0.3470200562684581,
            -0.5778946539381015,
            0.1330422902602316,
            5.551115123125783e-17,
            1.0,
            -0.13141899208986438,
            0.29964730259172867,
        ],
        [
            -0.35861682886156565,
            0.47146728839881463,
            0.7851374021494353,
            -0.18075349449783581,
            -0.09602350568105608,
            -0.7732656185894041,
            0.2929114053641608,
            -0.5541143185948715,
        ],
    ),
}


@pytest.fixture(autouse=True)
def _float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


def _mat(shape):
    n = shape[0] * shape[1]
    return np.cos(np.arange(1.0, n + 1).reshape(shape) * 0.7) + 2 * np.eye(*shape)


def _layer(shape, orthogonal_map):
    lin = torch.nn.Linear(shape[1], shape[0], bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(_mat(shape)))
    P.orthogonal(lin, orthogonal_map=orthogonal_map, use_trivialization=False)
    return lin


@pytest.mark.parametrize("key", sorted(ORTHO_REGISTER))
def test_orthogonal_without_trivialization_registers_as_pytorch(key):
    shape, orthogonal_map = key
    lin = _layer(shape, orthogonal_map)
    want_orig, want_w = ORTHO_REGISTER[key]
    orth = lin.parametrizations.weight[0]
    assert not hasattr(orth, "base")  # no trivialization: the weight is map(original)
    orig = lin.parametrizations.weight.original.detach().numpy().ravel()
    np.testing.assert_allclose(orig, want_orig, rtol=1e-12, atol=1e-12)
    w = lin.weight.detach().numpy()
    np.testing.assert_allclose(w.ravel(), want_w, rtol=1e-10, atol=1e-12)
    k = min(shape)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(k), atol=1e-12)


@pytest.mark.parametrize("shape", sorted(ORTHO_ASSIGN))
def test_orthogonal_householder_assignment(shape):
    lin = _layer(shape, "householder")
    q = np.linalg.qr(np.sin(_mat((max(shape), min(shape)))))[0]
    if shape[0] < shape[1]:
        q = q.T
    lin.weight = torch.tensor(q)
    want_orig, want_w = ORTHO_ASSIGN[shape]
    orig = lin.parametrizations.weight.original.detach().numpy().ravel()
    np.testing.assert_allclose(orig, want_orig, rtol=1e-12, atol=1e-12)
    # the weight becomes the Q of the QR of the value with diag(R) > 0: here the value
    # up to the signs of its columns (PyTorch's numbers)
    np.testing.assert_allclose(lin.weight.detach().numpy().ravel(), want_w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley"])
def test_orthogonal_without_trivialization_refuses_assignment(orthogonal_map):
    lin = _layer((3, 3), orthogonal_map)
    before = lin.parametrizations.weight.original.detach().numpy().copy()
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        lin.weight = torch.eye(3)
    np.testing.assert_array_equal(lin.parametrizations.weight.original.detach().numpy(), before)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_without_trivialization_gradcheck(orthogonal_map):
    lin = _layer((4, 2), orthogonal_map)
    orth = lin.parametrizations.weight[0]
    orig = lin.parametrizations.weight.original.detach()
    x = orig.clone().requires_grad_(True)
    # householder reads the diagonal's signs (not differentiated, and truncated like
    # PyTorch's .int()): vary the strictly lower part only
    fixed = orig - orig.tril(-1)
    fn = (lambda t: orth(t.tril(-1) + fixed)) if orthogonal_map == "householder" else orth
    assert torch.autograd.gradcheck(fn, (x,), eps=1e-6, atol=1e-6)


def test_orthogonal_without_trivialization_trains():
    lin = _layer((3, 3), "householder")
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    target = torch.tensor(_mat((3, 3)))
    for _ in range(3):
        opt.zero_grad()
        ((lin.weight - target) ** 2).sum().backward()
        opt.step()
    w = lin.weight.detach().numpy()
    np.testing.assert_allclose(w.T @ w, np.eye(3), atol=1e-12)
