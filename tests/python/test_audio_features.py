"""paddle.audio: functional (mel scale, filter banks, power_to_db, DCT), the feature layers
(Spectrogram, MelSpectrogram, LogMelSpectrogram, MFCC), the wave backend and datasets.

References are NumPy float64 implementations of the documented formulas (Slaney's and
HTK's mel scales as in librosa, which Paddle 3.3.1's python/paddle/audio/functional/
functional.py follows) and scipy (scipy.signal.stft, scipy.fft.dct, scipy.signal
get_window). Signatures and defaults: Paddle's features/layers.py and
backends/wave_backend.py.
"""

from __future__ import annotations

import io
import math
import wave

import ferrograd as paddle
import numpy as np
import pytest
import scipy.fft
import scipy.signal

AF = paddle.audio.functional
feats = paddle.audio.features


def t64(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


# ---- NumPy references ------------------------------------------------------------


def np_hz_to_mel(f, htk=False):
    f = np.asarray(f, dtype=np.float64)
    if htk:
        return 2595.0 * np.log10(1.0 + f / 700.0)
    lin = f / (200.0 / 3)
    logs = 15.0 + np.log(np.maximum(f, 1000.0) / 1000.0 + 1e-10) / (np.log(6.4) / 27.0)
    return np.where(f > 1000.0, logs, lin)


def np_mel_to_hz(m, htk=False):
    m = np.asarray(m, dtype=np.float64)
    if htk:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    return np.where(m > 15.0, 1000.0 * np.exp(np.log(6.4) / 27.0 * (m - 15.0)), m * 200.0 / 3)


def np_fbank(sr, n_fft, n_mels, f_min, f_max, htk, norm):
    # librosa.filters.mel's construction: triangles between consecutive mel points. The
    # bin frequencies are Paddle's fft_frequencies, linspace(0, sr / 2, n_fft // 2 + 1)
    # (librosa < 0.9): rfftfreq for an even n_fft, stretched to sr / 2 for an odd one
    fft_f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    mel_f = np_mel_to_hz(
        np.linspace(np_hz_to_mel(f_min, htk), np_hz_to_mel(f_max, htk), n_mels + 2), htk
    )
    w = np.zeros((n_mels, len(fft_f)))
    for i in range(n_mels):
        lo, c, hi = mel_f[i : i + 3]
        w[i] = np.clip(np.minimum((fft_f - lo) / (c - lo), (hi - fft_f) / (hi - c)), 0, None)
    if norm == "slaney":
        w *= (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]
    elif norm is not None:
        w /= np.maximum(np.linalg.norm(w, ord=norm, axis=1, keepdims=True), 1e-12)
    return w


def np_spectrogram(x, n_fft, hop, window, power, center=True):
    win = scipy.signal.get_window(window, n_fft, fftbins=True)
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode="reflect")
    n = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., i * hop : i * hop + n_fft] for i in range(n)], axis=-2)
    spec = np.fft.rfft(frames * win, axis=-1)  # (..., frames, bins)
    return np.swapaxes(np.abs(spec) ** power, -1, -2)


def np_db(s, ref=1.0, amin=1e-10, top_db=None):
    d = 10 * np.log10(np.maximum(s, amin)) - 10 * np.log10(max(ref, amin))
    return d if top_db is None else np.maximum(d, d.max() - top_db)


@pytest.fixture
def wav2():
    rng = np.random.default_rng(0)
    return rng.standard_normal((2, 1000))


# ---- functional ------------------------------------------------------------------


@pytest.mark.parametrize("htk", [False, True])
def test_mel_scale_vs_numpy(htk):
    f = np.array([0.0, 30.0, 700.0, 999.0, 1000.0, 1000.5, 4000.0, 11025.0])
    mel = AF.hz_to_mel(t64(f), htk)
    np.testing.assert_allclose(mel.numpy(), np_hz_to_mel(f, htk), rtol=1e-13, atol=1e-12)
    back = AF.mel_to_hz(mel, htk)
    np.testing.assert_allclose(back.numpy(), np_mel_to_hz(np_hz_to_mel(f, htk), htk), rtol=1e-12)
    np.testing.assert_allclose(back.numpy(), f, rtol=1e-9, atol=1e-9)  # 1e-10 of Paddle's log
    for v in f:  # Python numbers give floats, the same values (Paddle's scalar path
        # takes the log branch from 1000 Hz on, the tensor path above it: 1.5e-9 apart)
        assert isinstance(AF.hz_to_mel(float(v), htk), float)
        assert AF.hz_to_mel(float(v), htk) == pytest.approx(float(np_hz_to_mel(v, htk)), rel=1e-9)
        m = float(np_hz_to_mel(v, htk))
        assert AF.mel_to_hz(m, htk) == pytest.approx(float(np_mel_to_hz(m, htk)), rel=1e-12)


def test_mel_scale_slaney_values_and_negative_freq_regression():
    # Slaney: 3 mels per 200 Hz below 1 kHz (1 kHz = 15 mels), 27 mels per factor 6.4 above
    assert AF.hz_to_mel(1000.0) == pytest.approx(15.0)
    assert AF.hz_to_mel(6400.0) == pytest.approx(42.0)
    # Paddle's tensor path multiplies a log(negative) NaN by a 0 mask, so negative
    # frequencies give NaN (and NaN gradients); here the linear branch, as its scalar path
    f = t64([-100.0, -5000.0])
    f.stop_gradient = False
    mel = AF.hz_to_mel(f)
    np.testing.assert_allclose(mel.numpy(), [-1.5, -75.0])
    mel.sum().backward()
    np.testing.assert_allclose(f.grad.numpy(), [0.015, 0.015])


def test_mel_scale_gradcheck_and_int_input():
    f = t64([50.0, 800.0, 1500.0, 7000.0])
    f.stop_gradient = False
    for htk in (False, True):
        assert paddle.autograd.gradcheck(lambda x, htk=htk: AF.hz_to_mel(x, htk), (f,))
        m = AF.hz_to_mel(f, htk).detach()
        m.stop_gradient = False
        assert paddle.autograd.gradcheck(lambda x, htk=htk: AF.mel_to_hz(x, htk), (m,))
    out = AF.hz_to_mel(paddle.to_tensor([0, 2000]))  # an integer tensor: default float
    assert out.dtype == paddle.float32
    with pytest.raises(TypeError, match="real number"):
        AF.hz_to_mel("100")


@pytest.mark.parametrize("htk", [False, True])
def test_mel_and_fft_frequencies(htk):
    got = AF.mel_frequencies(10, 20.0, 8000.0, htk, dtype="float64")
    ref = np_mel_to_hz(np.linspace(np_hz_to_mel(20.0, htk), np_hz_to_mel(8000.0, htk), 10), htk)
    assert got.dtype == paddle.float64 and got.shape == [10]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    assert AF.mel_frequencies().dtype == paddle.float32  # Paddle's default dtype
    ff = AF.fft_frequencies(16000, 100, dtype="float64")
    np.testing.assert_allclose(ff.numpy(), np.fft.rfftfreq(100, 1 / 16000), rtol=1e-14)
    odd = AF.fft_frequencies(22050, 511, dtype="float64")  # Paddle's linspace, as documented
    np.testing.assert_allclose(odd.numpy(), np.linspace(0, 11025, 256), rtol=1e-14)


@pytest.mark.parametrize(
    "sr,n_fft,n_mels,f_min,f_max,htk,norm",
    [
        (16000, 512, 40, 0.0, None, False, "slaney"),
        (22050, 2048, 64, 50.0, 11025.0, False, "slaney"),
        (16000, 400, 23, 20.0, 7600.0, True, "slaney"),
        (8000, 256, 12, 0.0, 4000.0, True, None),
        (8000, 256, 12, 0.0, 4000.0, False, 2.0),
        (8000, 255, 10, 100.0, 3000.0, False, 1.0),
    ],
)
def test_fbank_matrix_vs_numpy(sr, n_fft, n_mels, f_min, f_max, htk, norm):
    got = AF.compute_fbank_matrix(sr, n_fft, n_mels, f_min, f_max, htk, norm, dtype="float64")
    ref = np_fbank(sr, n_fft, n_mels, f_min, sr / 2 if f_max is None else f_max, htk, norm)
    assert got.shape == [n_mels, n_fft // 2 + 1]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-13)
    got32 = AF.compute_fbank_matrix(sr, n_fft, n_mels, f_min, f_max, htk, norm)
    assert got32.dtype == paddle.float32
    np.testing.assert_allclose(got32.numpy(), ref, rtol=1e-6, atol=1e-9)


def test_fbank_matrix_bad_arguments():
    with pytest.raises(ValueError, match="norm"):
        AF.compute_fbank_matrix(16000, 512, norm="ortho")
    with pytest.raises(ValueError, match="f_min < f_max"):
        AF.compute_fbank_matrix(16000, 512, f_min=9000.0)
    with pytest.raises(TypeError, match="floating"):
        AF.compute_fbank_matrix(16000, 512, dtype="int64")
    with pytest.raises(ValueError, match="n_fft"):
        AF.compute_fbank_matrix(16000, 0)


def test_power_to_db_vs_numpy():
    rng = np.random.default_rng(1)
    s = rng.uniform(0, 10, (2, 5, 7)) ** 4
    s[0, 0, 0] = 0.0
    for ref, amin, top in [(1.0, 1e-10, None), (2.0, 1e-5, 30.0), (0.5, 1e-10, 80.0)]:
        got = AF.power_to_db(t64(s), ref, amin, top)
        np.testing.assert_allclose(got.numpy(), np_db(s, ref, amin, top), rtol=1e-12, atol=1e-12)
    # Paddle's functional default top_db=80; the max is over the whole (batched) tensor
    np.testing.assert_allclose(AF.power_to_db(t64(s)).numpy(), np_db(s, top_db=80.0), rtol=1e-12)
    x = t64(s[1])
    x.stop_gradient = False
    assert paddle.autograd.gradcheck(lambda v: AF.power_to_db(v, top_db=None), (x,))
    for kw in ({"amin": 0.0}, {"ref_value": -1.0}, {"top_db": -1.0}):
        with pytest.raises(ValueError, match="must be"):
            AF.power_to_db(t64(s), **kw)


@pytest.mark.parametrize("norm", ["ortho", None])
def test_create_dct_vs_scipy(norm):
    dct = AF.create_dct(13, 40, norm=norm, dtype="float64")
    assert dct.shape == [40, 13]
    x = np.random.default_rng(2).standard_normal((3, 40))
    # x @ D is the DCT-II of the rows, the first 13 coefficients (scipy's norm=None is 2 * sum)
    ref = scipy.fft.dct(x, type=2, norm=norm, axis=-1)[:, :13]
    np.testing.assert_allclose(x @ dct.numpy(), ref, rtol=1e-12, atol=1e-12)
    if norm == "ortho":
        np.testing.assert_allclose(dct.numpy().T @ dct.numpy(), np.eye(13), atol=1e-13)
    assert AF.create_dct(4, 8).dtype == paddle.float32
    with pytest.raises(ValueError, match="ortho"):
        AF.create_dct(4, 8, norm="backward")


def test_get_window_is_scipys():
    for name in ("hann", "hamming", ("kaiser", 8.0), ("tukey", 0.3)):
        got = AF.get_window(name, 64).numpy()
        np.testing.assert_allclose(got, scipy.signal.get_window(name, 64), rtol=1e-12, atol=1e-14)


# ---- feature layers --------------------------------------------------------------


def test_spectrogram_vs_scipy_stft(wav2):
    # center=False: scipy.signal.stft's frames (boundary=None, padded=False), which scipy
    # scales by 1 / sum(window)
    n_fft, hop = 64, 16
    layer = feats.Spectrogram(n_fft, hop, center=False, power=1.0, dtype="float64")
    got = layer(t64(wav2))
    win = scipy.signal.get_window("hann", n_fft)
    _, _, z = scipy.signal.stft(
        wav2, window=win, nperseg=n_fft, noverlap=n_fft - hop, boundary=None, padded=False,
        detrend=False,
    )  # fmt: skip
    assert got.shape == list(z.shape)
    np.testing.assert_allclose(got.numpy(), np.abs(z) * win.sum(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("power,window", [(1.0, "hann"), (2.0, "hamming"), (1.5, ("kaiser", 5.0))])
def test_spectrogram_centered_vs_numpy(wav2, power, window):
    layer = feats.Spectrogram(n_fft=128, hop_length=32, window=window, power=power, dtype="float64")
    got = layer(t64(wav2))
    ref = np_spectrogram(wav2, 128, 32, window, power)
    assert got.shape == [2, 65, 1 + 1000 // 32]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-10)
    one = layer(t64(wav2[1]))  # unbatched (T,): (bins, frames)
    np.testing.assert_allclose(one.numpy(), ref[1], rtol=1e-10, atol=1e-10)
    # Paddle's defaults: n_fft=512, hop_length=512, power=1.0, float32 hann window
    d = feats.Spectrogram()
    assert (d.n_fft, d.hop_length, d.power) == (512, 512, 1.0)
    assert d.fft_window.dtype == paddle.float32
    assert d(paddle.to_tensor(wav2.astype(np.float32))).shape == [2, 257, 2]


def _np_mel(x, sr, n_fft, hop, n_mels, f_min, f_max, htk=False, norm="slaney", power=2.0):
    fb = np_fbank(sr, n_fft, n_mels, f_min, f_max, htk, norm)
    return fb @ np_spectrogram(x, n_fft, hop, "hann", power)


def test_melspectrogram_logmel_mfcc_vs_numpy(wav2):
    kw = dict(sr=8000, n_fft=128, hop_length=32, n_mels=20, f_min=50.0, dtype="float64")
    mel = feats.MelSpectrogram(**kw)(t64(wav2))
    ref_mel = _np_mel(wav2, 8000, 128, 32, 20, 50.0, 4000)
    assert mel.shape == [2, 20, 32]
    np.testing.assert_allclose(mel.numpy(), ref_mel, rtol=1e-10, atol=1e-12)
    logmel = feats.LogMelSpectrogram(**kw, top_db=60.0)(t64(wav2))
    np.testing.assert_allclose(logmel.numpy(), np_db(ref_mel, top_db=60.0), rtol=1e-9, atol=1e-9)
    mfcc = feats.MFCC(n_mfcc=13, **kw)(t64(wav2))
    ref_mfcc = np.swapaxes(
        scipy.fft.dct(np.swapaxes(np_db(ref_mel), 1, 2), norm="ortho")[..., :13], 1, 2
    )
    assert mfcc.shape == [2, 13, 32]
    np.testing.assert_allclose(mfcc.numpy(), ref_mfcc, rtol=1e-9, atol=1e-8)
    one = feats.MFCC(n_mfcc=13, **kw)(t64(wav2[0]))  # unbatched: (n_mfcc, frames)
    np.testing.assert_allclose(one.numpy(), ref_mfcc[0], rtol=1e-9, atol=1e-8)


def test_mel_options_htk_norm_and_odd_sr_fmax(wav2):
    # f_max=None is sr // 2 in the layer (Paddle's MelSpectrogram), sr / 2 in the function
    layer = feats.MelSpectrogram(
        sr=8001, n_fft=64, hop_length=16, n_mels=8, htk=True, norm=None, dtype="float64"
    )
    ref = _np_mel(wav2, 8001, 64, 16, 8, 50.0, 4000, htk=True, norm=None)
    np.testing.assert_allclose(layer(t64(wav2)).numpy(), ref, rtol=1e-10, atol=1e-12)


def test_float32_layers_and_defaults(wav2):
    x = paddle.to_tensor(wav2.astype(np.float32))
    m = feats.MFCC(sr=16000)
    assert (m.dct_matrix.shape, m.dct_matrix.dtype) == ([64, 40], paddle.float32)
    y = m(x)
    assert y.dtype == paddle.float32 and y.shape == [2, 40, 1 + 1000 // 128]
    ref = feats.MFCC(sr=16000, dtype="float64")(t64(wav2)).numpy()
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-3, atol=1e-3)
    keys = set(m.state_dict())
    assert keys == {
        "dct_matrix",
        "_log_melspectrogram._melspectrogram.fbank_matrix",
        "_log_melspectrogram._melspectrogram._spectrogram.fft_window",
    }
    lm = feats.LogMelSpectrogram()
    assert (lm.ref_value, lm.amin, lm.top_db) == (1.0, 1e-10, None)
    ms = feats.MelSpectrogram()
    assert ms.fbank_matrix.shape == [64, 1025] and ms._spectrogram.hop_length == 512


def test_feature_gradcheck():
    rng = np.random.default_rng(3)
    x = t64(rng.standard_normal((2, 48)))
    x.stop_gradient = False
    kw = dict(sr=4000, n_fft=16, hop_length=8, n_mels=6, f_min=0.0, dtype="float64")
    mel = feats.MelSpectrogram(**kw)
    assert paddle.autograd.gradcheck(mel, (x,))
    mfcc = feats.MFCC(n_mfcc=4, **kw)
    assert paddle.autograd.gradcheck(mfcc, (x,))
    spec = feats.Spectrogram(n_fft=16, hop_length=4, power=1.0, dtype="float64")
    assert paddle.autograd.gradcheck(spec, (x,))


def test_layer_bad_arguments():
    with pytest.raises(ValueError, match="power"):
        feats.Spectrogram(power=0.0)
    with pytest.raises(ValueError, match="n_mfcc cannot be larger"):
        feats.MFCC(n_mfcc=80, n_mels=64)
    with pytest.raises(ValueError, match="win_length"):
        feats.Spectrogram(n_fft=64, win_length=128)
    with pytest.raises(ValueError, match="pad_mode"):
        feats.Spectrogram(pad_mode="edge")
    with pytest.raises(ValueError, match="amin"):
        feats.LogMelSpectrogram(amin=0.0)


# ---- wave backend, backends, datasets --------------------------------------------


def test_save_load_round_trip(tmp_path):
    rng = np.random.default_rng(4)
    ints = rng.integers(-(2**15), 2**15, size=(2, 300))
    x = paddle.to_tensor((ints / 2**15).astype(np.float32))  # exactly representable
    path = tmp_path / "a.wav"
    paddle.audio.save(str(path), x, 16000)
    info = paddle.audio.info(str(path))
    assert (info.sample_rate, info.num_samples, info.num_channels) == (16000, 300, 2)
    assert (info.bits_per_sample, info.encoding) == (16, "PCM_S")
    y, sr = paddle.audio.load(path)
    assert sr == 16000 and y.dtype == paddle.float32 and y.shape == [2, 300]
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    raw, _ = paddle.audio.load(path, normalize=False)  # raw values, float32 (Paddle's code)
    np.testing.assert_array_equal(raw.numpy(), ints.astype(np.float32))
    # frame_offset is honoured with num_frames=-1 too (Paddle then reads from 0)
    part, _ = paddle.audio.load(path, frame_offset=100, num_frames=50, channels_first=False)
    np.testing.assert_array_equal(part.numpy(), x.numpy()[:, 100:150].T)
    rest, _ = paddle.audio.load(path, frame_offset=250)
    np.testing.assert_array_equal(rest.numpy(), x.numpy()[:, 250:])
    with open(path, "rb") as f:  # a file object is read and left open
        z, _ = paddle.audio.load(f)
        assert not f.closed
    np.testing.assert_array_equal(z.numpy(), x.numpy())
    with wave.open(str(path)) as w:  # a standard 16-bit PCM file
        assert (w.getsampwidth(), w.getnchannels(), w.getframerate()) == (2, 2, 16000)


def test_save_dtypes_and_clipping(tmp_path):
    p = str(tmp_path / "b.wav")
    # (time, channels) float64, with 1.0 and -1.5: scaled, clipped (Paddle wraps 1.0 to
    # -32768 and writes float64 bytes unscaled)
    x = paddle.to_tensor(np.array([[0.5, 1.0, -1.5, -0.25]], dtype=np.float64).T)
    paddle.audio.save(p, x, 8000, channels_first=False)
    y, _ = paddle.audio.load(p, normalize=False)
    np.testing.assert_array_equal(y.numpy(), [[16384.0, 32767.0, -32768.0, -8192.0]])
    ints = paddle.to_tensor(np.array([[1, -2, 32767]], dtype=np.int16))
    paddle.audio.save(p, ints, 8000)
    np.testing.assert_array_equal(
        paddle.audio.load(p, normalize=False)[0].numpy(), [[1, -2, 32767]]
    )
    buf = io.BytesIO()
    paddle.audio.save(buf, ints, 8000)
    buf.seek(0)
    assert paddle.audio.info(buf).num_samples == 3
    with pytest.raises(ValueError, match="2D"):
        paddle.audio.save(p, paddle.zeros([10]), 8000)
    with pytest.raises(ValueError, match="16"):
        paddle.audio.save(p, paddle.zeros([1, 10]), 8000, bits_per_sample=24)
    with pytest.raises(ValueError, match="16 bits"):
        paddle.audio.save(p, paddle.to_tensor([[40000]]), 8000)
    with pytest.raises(ValueError, match="NaN"):
        paddle.audio.save(p, paddle.to_tensor([[float("nan")]]), 8000)


def test_load_refuses_other_files(tmp_path):
    p8 = str(tmp_path / "c.wav")
    with wave.open(p8, "wb") as w:  # 8-bit PCM: Paddle would read its bytes as int16
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(bytes(range(10)))
    assert paddle.audio.info(p8).bits_per_sample == 8
    with pytest.raises(NotImplementedError, match="16-bit PCM"):
        paddle.audio.load(p8)
    junk = tmp_path / "d.wav"
    junk.write_bytes(b"not a wave file at all")
    with pytest.raises(NotImplementedError, match="16-bit PCM"):
        paddle.audio.info(str(junk))
    p = str(tmp_path / "e.wav")
    paddle.audio.save(p, paddle.zeros([1, 10]), 8000)
    with pytest.raises(ValueError, match="frame_offset"):
        paddle.audio.load(p, frame_offset=11)


def test_backends_and_datasets():
    b = paddle.audio.backends
    assert b.list_available_backends() == ["wave_backend"]
    assert b.get_current_backend() == "wave_backend"
    b.set_backend("wave_backend")
    with pytest.raises(NotImplementedError, match="soundfile"):
        b.set_backend("soundfile")
    for cls in (paddle.audio.datasets.ESC50, paddle.audio.datasets.TESS):
        with pytest.raises(NotImplementedError, match="downloads nothing"):
            cls(mode="train")
    assert math.isclose(AF.hz_to_mel(3.0, True), 2595.0 * math.log10(1 + 3.0 / 700.0))
