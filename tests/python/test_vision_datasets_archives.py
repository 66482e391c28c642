"""ferrograd.vision.datasets.Flowers and VOC2012 over small archives laid out like the
real ones (built here with Pillow and SciPy; skipped without Pillow).
"""

import io
import pickle
import tarfile

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import datasets


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _encode(Image, arr, fmt):
    """``arr`` encoded as ``fmt``; the ".jpg" members get PNG (Pillow reads by content,
    and PNG is lossless, so pixel values can be checked exactly)."""
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format=fmt)
    return buf.getvalue()


def test_flowers_reads_paddles_split_from_the_archive(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    sio = pytest.importorskip("scipy.io")
    data = tmp_path / "102flowers.tgz"
    with tarfile.open(data, "w:gz") as tar:
        for i in range(1, 6):
            img = np.full((4, 6, 3), 40 * i, dtype=np.uint8)
            _add(tar, f"jpg/image_{i:05}.jpg", _encode(Image, img, "PNG"))
    labels = tmp_path / "imagelabels.mat"
    sio.savemat(labels, {"labels": np.array([[7, 8, 9, 10, 11]])})
    setid = tmp_path / "setid.mat"
    sio.savemat(setid, {"tstid": np.array([[2, 4, 5]]), "trnid": np.array([[1]]),
                        "valid": np.array([[3]])})  # fmt: skip
    train = datasets.Flowers(str(data), str(labels), str(setid), backend="cv2")
    assert len(train) == 3  # Paddle trains on "tstid"
    img, label = train[1]
    assert img.dtype == np.float32 and img.shape == (4, 6, 3) and (img == 160).all()
    assert label.dtype == np.int64 and label.tolist() == [10]
    test = datasets.Flowers(str(data), str(labels), str(setid), mode="test", backend="pil")
    pil, lab = test[0]
    assert pil.size == (6, 4) and lab.tolist() == [7]
    loader = paddle.io.DataLoader(train, batch_size=3)
    batch = next(iter(loader))
    assert list(batch[0].shape) == [3, 4, 6, 3] and batch[1].numpy().ravel().tolist() == [8, 10, 11]
    assert pickle.loads(pickle.dumps(train))[2][1].tolist() == [11]
    with pytest.raises(ValueError, match="'valid'"):
        datasets.Flowers(str(data), str(labels), str(setid), mode="dev")
    with pytest.raises(FileNotFoundError, match="setid.mat"):
        datasets.Flowers(str(data), str(labels))


def test_voc2012_images_and_masks(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    root = "VOCdevkit/VOC2012/"
    path = tmp_path / "VOCtrainval_11-May-2012.tar"
    with tarfile.open(path, "w") as tar:
        _add(tar, root + "ImageSets/Segmentation/trainval.txt", b"a\nb\n")
        _add(tar, root + "ImageSets/Segmentation/val.txt", b"b\n")
        for k, name in enumerate("ab"):
            img = np.full((5, 4, 3), 10 * (k + 1), dtype=np.uint8)
            mask = np.full((5, 4), k + 1, dtype=np.uint8)
            _add(tar, root + f"JPEGImages/{name}.jpg", _encode(Image, img, "PNG"))
            _add(tar, root + f"SegmentationClass/{name}.png", _encode(Image, mask, "PNG"))
    ds = datasets.VOC2012(str(path), backend="cv2")
    assert len(ds) == 2
    img, mask = ds[1]
    assert img.dtype == np.float32 and img.shape == (5, 4, 3) and (img == 20).all()
    assert mask.shape == (5, 4) and (mask == 2).all()
    val = datasets.VOC2012(str(path), mode="valid", backend="pil")
    assert len(val) == 1 and val[0][1].size == (4, 5)
    assert paddle.vision.VOC2012 is datasets.VOC2012
