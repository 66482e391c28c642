"""ferrograd.vision.datasets: local files only, Paddle's item format, clear missing-file errors."""

import gzip
import io
import pickle
import struct
import tarfile

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import datasets
from ferrograd.vision import transforms as T


def _write_idx(path, arr, magic):
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + arr.astype(np.uint8).tobytes())


@pytest.fixture
def mnist_files(tmp_path):
    images = np.random.randint(0, 256, size=(5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], dtype=np.uint8)
    ip, lp = tmp_path / "train-images-idx3-ubyte.gz", tmp_path / "train-labels-idx1-ubyte.gz"
    _write_idx(ip, images, 0x0803)
    _write_idx(lp, labels, 0x0801)
    return str(ip), str(lp), images, labels


def test_mnist_numpy_backend(mnist_files):
    ip, lp, images, labels = mnist_files
    ds = datasets.MNIST(image_path=ip, label_path=lp, backend="cv2")
    assert len(ds) == 5
    img, label = ds[2]
    assert img.dtype == np.float32 and img.shape == (28, 28)
    np.testing.assert_array_equal(img, images[2])
    assert label.dtype == np.int64 and label.shape == (1,) and int(label[0]) == 4


def test_mnist_with_transform_and_loader(mnist_files):
    ip, lp, images, _ = mnist_files
    ds = datasets.FashionMNIST(ip, lp, transform=T.ToTensor(), backend="cv2")
    img, _ = ds[0]
    assert list(img.shape) == [1, 28, 28]
    loader = paddle.io.DataLoader(ds, batch_size=2)
    x, y = next(iter(loader))
    assert list(x.shape) == [2, 1, 28, 28] and list(y.shape) == [2, 1]


def test_mnist_pil_backend(mnist_files):
    pytest.importorskip("PIL.Image")
    ip, lp, images, _ = mnist_files
    img, _ = datasets.MNIST(ip, lp, backend="pil")[1]
    np.testing.assert_array_equal(np.asarray(img), images[1])


def test_missing_files_raise_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte.gz.*download=False"):
        datasets.MNIST()
    with pytest.raises(FileNotFoundError, match="t10k-labels"):
        datasets.MNIST(image_path=__file__, mode="test")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        datasets.Cifar10(data_file=str(tmp_path / "nope.tar.gz"))
    with pytest.raises(FileNotFoundError, match="cifar-10-python.tar.gz"):
        datasets.Cifar10(download=False)


def test_cifar10_from_local_archive(tmp_path):
    data = np.random.randint(0, 256, size=(4, 3072)).astype(np.uint8)
    labels = [0, 9, 2, 7]
    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, sl in [("data_batch_1", slice(0, 3)), ("test_batch", slice(3, 4))]:
            raw = pickle.dumps({b"data": data[sl], b"labels": labels[sl]})
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    train = datasets.Cifar10(str(path), backend="cv2")
    test = datasets.Cifar10(str(path), mode="test", backend="cv2")
    assert len(train) == 3 and len(test) == 1
    img, label = train[1]
    assert img.shape == (32, 32, 3) and img.dtype == np.float32
    np.testing.assert_array_equal(img, data[1].reshape(3, 32, 32).transpose(1, 2, 0))
    assert int(label) == 9 and label.dtype == np.int64


def test_image_backend_setting(mnist_files, monkeypatch):
    from ferrograd.vision import image

    monkeypatch.setattr(image, "_BACKEND", None)
    assert paddle.vision.get_image_backend() in ("pil", "cv2")
    paddle.vision.set_image_backend("cv2")
    assert paddle.vision.get_image_backend() == "cv2"
    ip, lp, _, _ = mnist_files
    img, _ = datasets.MNIST(ip, lp)[0]
    assert isinstance(img, np.ndarray)
    with pytest.raises(ValueError, match="backend"):
        paddle.vision.set_image_backend("opencv")


def test_dataset_folder_and_image_folder_over_npy(tmp_path):
    for cls, n in [("cat", 2), ("dog", 1)]:
        (tmp_path / cls).mkdir()
        for i in range(n):
            np.save(tmp_path / cls / f"{i}.npy", np.full((4, 4, 3), i, dtype=np.uint8))
    (tmp_path / "cat" / "notes.txt").write_text("ignored")
    ds = datasets.DatasetFolder(str(tmp_path), transform=T.ToTensor())
    assert ds.classes == ["cat", "dog"] and ds.class_to_idx == {"cat": 0, "dog": 1}
    assert len(ds) == 3 and ds.targets == [0, 0, 1]
    sample, target = ds[1]
    assert list(sample.shape) == [3, 4, 4] and target == 0
    flat = datasets.ImageFolder(str(tmp_path))
    assert len(flat) == 3 and flat[2][0].shape == (4, 4, 3)
    with pytest.raises(RuntimeError, match="0 files"):
        datasets.ImageFolder(str(tmp_path), extensions=(".png",))
    with pytest.raises(FileNotFoundError, match="not a directory"):
        datasets.DatasetFolder(str(tmp_path / "missing"))
