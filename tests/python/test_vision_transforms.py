"""ferrograd.vision.transforms: Paddle's image transforms against NumPy expectations."""

import random

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import transforms as T
from ferrograd.vision.transforms import functional as F


def _img(h=6, w=8, c=3):
    return (np.arange(h * w * c) % 256).astype(np.uint8).reshape(h, w, c)


def test_to_tensor_scales_uint8_and_moves_channels():
    img = _img()
    t = T.ToTensor()(img)
    assert t.dtype == paddle.float32
    np.testing.assert_allclose(t.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-5, atol=1e-6)
    hwc = F.to_tensor(img, data_format="HWC")
    assert list(hwc.shape) == [6, 8, 3]
    gray = F.to_tensor(img[:, :, 0])
    assert list(gray.shape) == [1, 6, 8]
    f = F.to_tensor(img.astype(np.float32))
    np.testing.assert_array_equal(f.numpy(), img.transpose(2, 0, 1).astype(np.float32))


def test_normalize_chw_hwc_and_to_rgb():
    x = np.random.rand(3, 4, 5).astype(np.float32)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.6, 0.7]
    want = (x - np.reshape(mean, (3, 1, 1))) / np.reshape(std, (3, 1, 1))
    np.testing.assert_allclose(F.normalize(x, mean, std), want, rtol=1e-5, atol=1e-6)
    out = T.Normalize(mean, std)(paddle.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
    h = x.transpose(1, 2, 0)
    got = F.normalize(h, mean, std, data_format="HWC", to_rgb=True)
    np.testing.assert_allclose(
        got, (h[..., ::-1] - np.array(mean)) / np.array(std), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(T.Normalize(0.5, 0.5)(x), (x - 0.5) / 0.5, rtol=1e-5, atol=1e-6)


def test_resize_sizes_and_values():
    img = _img()
    assert F.resize(img, (12, 16)).shape == (12, 16, 3)
    assert F.resize(img, 3).shape == (3, 4, 3)  # shorter side (h=6) -> 3
    assert F.resize(img.transpose(1, 0, 2), 3).shape == (4, 3, 3)
    assert F.resize(img, 6) is img
    # 2x bilinear downscale with half-pixel centres = mean of each 2x2 block
    x = np.random.rand(4, 6, 1)
    want = x.reshape(2, 2, 3, 2, 1).mean(axis=(1, 3))
    np.testing.assert_allclose(F.resize(x, (2, 3)), want, rtol=1e-12)
    near = F.resize(img, (3, 4), interpolation="nearest")
    np.testing.assert_array_equal(near, img[::2, ::2])
    up = F.resize(img, (12, 16))
    assert up.dtype == np.uint8
    with pytest.raises(ValueError, match="interpolation"):
        F.resize(img, (2, 2), interpolation="lanczos9")


def test_crops_flips_pad_transpose():
    img = _img()
    np.testing.assert_array_equal(F.crop(img, 1, 2, 3, 4), img[1:4, 2:6])
    np.testing.assert_array_equal(T.CenterCrop(4)(img), img[1:5, 2:6])
    np.testing.assert_array_equal(F.center_crop(img, (2, 6)), img[2:4, 1:7])
    np.testing.assert_array_equal(F.hflip(img), img[:, ::-1])
    np.testing.assert_array_equal(F.vflip(img), img[::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(0.0)(img), img)
    p = F.pad(img, (1, 2), fill=7)
    assert p.shape == (10, 10, 3) and (p[0] == 7).all() and (p[:, 0] == 7).all()
    np.testing.assert_array_equal(p[2:8, 1:9], img)
    np.testing.assert_array_equal(
        F.pad(img, (1, 2, 3, 4), padding_mode="reflect"),
        np.pad(img, [(2, 4), (1, 3), (0, 0)], mode="reflect"),
    )
    np.testing.assert_array_equal(
        T.Pad(2, padding_mode="edge")(img), np.pad(img, [(2, 2), (2, 2), (0, 0)], mode="edge")
    )
    assert T.Transpose()(img).shape == (3, 6, 8)
    assert T.Transpose()(img[:, :, 0]).shape == (1, 6, 8)
    t = paddle.to_tensor(img.transpose(2, 0, 1).astype(np.float32))
    np.testing.assert_array_equal(F.hflip(t).numpy(), img.transpose(2, 0, 1)[:, :, ::-1])


def test_random_crop_uses_python_random_and_padding():
    img = _img()
    random.seed(3)
    out = T.RandomCrop((4, 5))(img)
    random.seed(3)
    top, left = random.randint(0, 2), random.randint(0, 3)
    np.testing.assert_array_equal(out, img[top : top + 4, left : left + 5])
    assert T.RandomCrop(6, padding=2)(img).shape == (6, 6, 3)
    assert T.RandomCrop(10, pad_if_needed=True)(img).shape == (10, 10, 3)
    np.testing.assert_array_equal(T.RandomCrop((6, 8))(img), img)


def test_compose_and_keys_tuple():
    img = _img()
    pipe = T.Compose(
        [
            T.Resize((4, 4)),
            T.RandomHorizontalFlip(),
            T.ToTensor(),
            T.Normalize([0.5] * 3, [0.5] * 3),
        ]
    )
    out = pipe(img)
    assert list(out.shape) == [3, 4, 4]
    assert out.dtype == paddle.float32
    img2, label = T.Compose([T.CenterCrop(4), T.ToTensor()])((img, 5))
    assert list(img2.shape) == [3, 4, 4] and label == 5
    # one draw per call: image and mask get the same flip
    a, b = T.RandomHorizontalFlip(1.0, keys=("image", "image"))((img, img))
    np.testing.assert_array_equal(a, b)


def test_pil_images_when_pillow_is_installed():
    Image = pytest.importorskip("PIL.Image")
    img = _img()
    pil = Image.fromarray(img)
    r = F.resize(pil, (3, 4))
    assert r.size == (4, 3)
    np.testing.assert_array_equal(np.asarray(F.hflip(pil)), img[:, ::-1])
    np.testing.assert_allclose(
        T.ToTensor()(pil).numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-5, atol=1e-6
    )


def test_random_resized_crop_and_grayscale():
    img = _img(20, 30)
    np.random.seed(0)
    random.seed(0)
    out = T.RandomResizedCrop((8, 10))(img)
    assert out.shape == (8, 10, 3) and out.dtype == np.uint8
    # full-area, ratio-1 crop of a square image: the whole image, resized
    sq = _img(8, 8)
    np.testing.assert_array_equal(
        T.RandomResizedCrop(8, scale=(1.0, 1.0), ratio=(1.0, 1.0))(sq), sq
    )
    g = T.Grayscale()(img)
    want = np.rint(img.astype(np.float64) @ np.array([0.299, 0.587, 0.114]))
    assert g.shape == (20, 30, 1)
    np.testing.assert_array_equal(g[:, :, 0], want.astype(np.uint8))
    assert F.to_grayscale(img, 3).shape == (20, 30, 3)
