"""ferrograd.vision.transforms: colour adjustments, warps and erasing (Paddle's API).

Nearest-neighbour warps of NumPy arrays are checked against Pillow's own warps (what
Paddle uses for PIL images) where Pillow is installed, and against exact identities
(quarter turns, flips, whole-pixel shifts) everywhere.
"""

import random

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import transforms as T
from ferrograd.vision.transforms import functional as F


def _img(h=7, w=9, seed=0):
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def _chw(img):
    return paddle.to_tensor(np.ascontiguousarray(img.transpose(2, 0, 1)).astype(np.float32) / 255)


def test_brightness_contrast_saturation_are_blends():
    img = _img()
    x = img.astype(np.float64)
    np.testing.assert_array_equal(
        F.adjust_brightness(img, 1.7), np.clip(x * 1.7, 0, 255).astype(np.uint8)
    )
    gray = x @ [0.299, 0.587, 0.114]
    want = np.clip(0.6 * x + 0.4 * gray.mean(), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(F.adjust_contrast(img, 0.6), want)
    want = np.clip(1.5 * x - 0.5 * gray[..., None], 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(F.adjust_saturation(img, 1.5), want)
    # float images clip to [0, 1]; tensors come back as CHW tensors
    t = F.adjust_brightness(_chw(img), 3.0)
    assert isinstance(t, paddle.Tensor) and list(t.shape) == [3, 7, 9]
    np.testing.assert_allclose(
        t.numpy(), np.clip(img.transpose(2, 0, 1) / 255 * 3.0, 0, 1), rtol=1e-6, atol=1e-6
    )
    assert (F.adjust_saturation(img, 0.0) == F.adjust_saturation(img, 0.0)[..., :1]).all()
    one = img[:, :, :1]
    np.testing.assert_array_equal(F.adjust_saturation(one, 2.0), one)
    with pytest.raises(ValueError, match="non-negative"):
        F.adjust_brightness(img, -1)


def test_hue_shift_is_a_rotation_of_colours():
    img = _img()
    np.testing.assert_array_equal(F.adjust_hue(img, 0.0), img)
    red = np.zeros((1, 1, 3), np.uint8)
    red[..., 0] = 255
    # a third of a turn takes red to green, two thirds to blue
    np.testing.assert_array_equal(F.adjust_hue(red, 1 / 3)[0, 0], [0, 255, 0])
    np.testing.assert_array_equal(F.adjust_hue(red, -1 / 3)[0, 0], [0, 0, 255])
    f = img.astype(np.float32) / 255
    back = F.adjust_hue(F.adjust_hue(f, 0.3), -0.3)
    np.testing.assert_allclose(back, f, atol=1e-5)
    with pytest.raises(ValueError, match=r"\[-0.5, 0.5\]"):
        F.adjust_hue(img, 0.7)


def test_rotate_quarter_turns_and_expand():
    img = _img()
    # 90 degrees counter-clockwise with expand is np.rot90 (nearest and bilinear)
    for interp in ("nearest", "bilinear"):
        np.testing.assert_array_equal(
            F.rotate(img, 90, interpolation=interp, expand=True), np.rot90(img)
        )
    np.testing.assert_array_equal(F.rotate(img, 180), img[::-1, ::-1])
    out = F.rotate(_chw(img), -90, expand=True)
    np.testing.assert_allclose(out.numpy(), _chw(np.rot90(img, -1)).numpy())
    assert F.rotate(img, 30, expand=True).shape == (11, 13, 3)
    # without expand the corners leave the canvas and read `fill` (one value per channel)
    r = F.rotate(img, 45, fill=[10, 20, 30])
    np.testing.assert_array_equal(r[0, 0], [10, 20, 30])


def test_warps_match_pillow_nearest():
    Image = pytest.importorskip("PIL.Image")
    img = _img()
    pil = Image.fromarray(img)
    cases = [
        ("rotate", dict(angle=30)),
        ("rotate", dict(angle=30, expand=True)),
        ("rotate", dict(angle=-45, center=(2, 3), fill=[10, 20, 30])),
        ("affine", dict(angle=20, translate=[1, -2], scale=1.2, shear=[10, 5])),
        ("perspective", dict(startpoints=[[0, 0], [8, 0], [8, 6], [0, 6]],
                             endpoints=[[1, 0], [7, 1], [8, 5], [0, 6]])),
    ]  # fmt: skip
    for name, kw in cases:
        fn = getattr(F, name)
        np.testing.assert_array_equal(fn(img, **kw), np.asarray(fn(pil, **kw)), err_msg=name)


def test_affine_identities_and_bilinear_interior():
    img = _img()
    np.testing.assert_array_equal(F.affine(img, 0, [0, 0], 1.0, 0), img)
    shifted = F.affine(img, 0, [2, 1], 1.0, 0)
    np.testing.assert_array_equal(shifted[1:, 2:], img[:-1, :-2])
    assert (shifted[0] == 0).all() and (shifted[:, :2] == 0).all()
    # scale 2 about the centre, bilinear: the output pixel centre (x + 0.5) maps to the
    # input point (x + 0.5 - w/2) / 2 + w/2, sampled between pixel centres
    x = np.arange(8, dtype=np.float64).reshape(1, 8) * np.ones((8, 1))
    out = F.affine(x, 0, [0, 0], 2.0, 0, interpolation="bilinear")
    want = np.clip((np.arange(8) + 0.5 - 4) / 2 + 4 - 0.5, 0, 7)
    np.testing.assert_allclose(out[3], want)
    with pytest.raises(ValueError, match="scale must be positive"):
        F.affine(img, 0, [0, 0], 0.0, 0)
    with pytest.raises(ValueError, match="interpolation"):
        F.rotate(img, 10, interpolation="lanczos")


def test_perspective_identity_and_erase():
    img = _img()
    pts = [[0, 0], [8, 0], [8, 6], [0, 6]]
    np.testing.assert_array_equal(F.perspective(img, pts, pts), img)
    out = F.erase(img, 1, 2, 3, 4, np.array([1, 2, 3]))
    assert (out[1:4, 2:6] == [1, 2, 3]).all() and out is not img
    np.testing.assert_array_equal(out[0], img[0])
    t = _chw(img)
    e = F.erase(t, 0, 0, 2, 2, paddle.zeros([3, 1, 1]))
    assert float(e.numpy()[:, :2, :2].sum()) == 0.0 and float(t.numpy()[:, :2, :2].sum()) > 0
    F.erase(t, 0, 0, 1, 1, 5.0, inplace=True)
    assert (t.numpy()[:, 0, 0] == 5.0).all()


def test_random_transforms_draw_once_per_call_and_are_seeded():
    img = _img(16, 20)
    keys = ("image", "image")
    for tr in (
        T.ColorJitter(0.4, 0.4, 0.4, 0.1, keys=keys),
        T.RandomRotation(30, interpolation="bilinear", expand=True, keys=keys),
        T.RandomAffine(10, (0.1, 0.1), (0.9, 1.1), shear=(-5, 5, -2, 2), keys=keys),
        T.RandomPerspective(prob=1.0, keys=keys),
        T.RandomErasing(prob=1.0, value="random", keys=keys),
    ):
        random.seed(3)
        np.random.seed(3)
        a, b = tr((img, img))
        np.testing.assert_array_equal(a, b)  # the image and its mask got the same draw
        random.seed(3)
        np.random.seed(3)
        np.testing.assert_array_equal(tr(img), a)
    assert T.BrightnessTransform(0).value is None
    np.testing.assert_array_equal(T.ColorJitter()(img), img)
    random.seed(0)
    out = T.BrightnessTransform((2.0, 2.0))(img)
    np.testing.assert_array_equal(out, F.adjust_brightness(img, 2.0))
    erased = T.RandomErasing(prob=1.0, scale=(0.2, 0.2), ratio=(1, 1), value=(7, 8, 9))(img)
    assert ((erased == [7, 8, 9]).all(-1)).sum() == 64  # an 8x8 square (0.2 * 320 px)


def test_random_transform_argument_errors():
    with pytest.raises(ValueError, match="HueTransform"):
        T.HueTransform(0.7)
    with pytest.raises(ValueError, match="non-negative"):
        T.ColorJitter(brightness=-1)
    with pytest.raises(ValueError, match="translate"):
        T.RandomAffine(0, translate=(2, 0))
    with pytest.raises(ValueError, match="distortion_scale"):
        T.RandomPerspective(distortion_scale=2)
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")
