"""ferrograd.vision.models: DenseNet, SqueezeNet, ShuffleNetV2, MobileNetV3, GoogLeNet and
InceptionV3 against Paddle's architectures.

Counts: ``trainable`` is ``sum(p.numel() for p in model.parameters())`` (torchvision's
published figure where it has the model); ``stored`` is the total size of the state_dict,
BatchNorm statistics included, which is what Paddle's ``parameters()`` counts (computed
with Paddle 3.3.1). The full key lists and shapes were compared with Paddle's by hand,
and forward outputs with Paddle's weights loaded agreed to 1e-6.
"""

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import models


def _counts(m):
    trainable = sum(p.numel() for p in m.parameters())
    stored = sum(int(np.prod(list(v.shape))) for v in m.state_dict().values())
    return trainable, stored


def _run(m, size, batch=1):
    m.eval()
    with paddle.no_grad():
        return m(paddle.randn([batch, 3, size, size]))


@pytest.mark.parametrize(
    "ctor, trainable, stored, n_keys",
    [
        (models.squeezenet1_0, 1_248_424, 1_248_424, 52),
        (models.squeezenet1_1, 1_235_496, 1_235_496, 52),
        (models.shufflenet_v2_x0_25, 603_688, 607_712, 282),
        (models.shufflenet_v2_x1_0, 2_278_604, 2_294_784, 282),
        (models.mobilenet_v3_small, 2_542_856, 2_554_968, 210),
        (models.mobilenet_v3_large, 5_483_032, 5_507_432, 266),
    ],
)
def test_counts_match_paddle(ctor, trainable, stored, n_keys):
    m = ctor()
    assert _counts(m) == (trainable, stored)
    assert len(m.state_dict()) == n_keys


def test_squeezenet_shapes_and_keys():
    m = models.squeezenet1_1(num_classes=10)
    assert list(_run(m, 64, batch=2).shape) == [2, 10]
    keys = list(m.state_dict())
    assert keys[:4] == ["_conv.weight", "_conv.bias", "_conv1._conv._conv.weight",
                        "_conv1._conv._conv.bias"]  # fmt: skip
    assert keys[-2:] == ["_conv9.weight", "_conv9.bias"]
    feats = models.SqueezeNet("1.0", num_classes=0, with_pool=False)
    assert list(_run(feats, 64).shape) == [1, 512, 2, 2]
    with pytest.raises(ValueError, match="version"):
        models.SqueezeNet("2.0")


def test_shufflenet_names_shapes_and_scales():
    m = models.shufflenet_v2_x0_25(num_classes=7)
    assert list(_run(m, 64).shape) == [1, 7]
    sd = m.state_dict()
    assert "2_1._conv_dw_1.0.weight" in sd and "4_4._conv_linear.1._variance" in sd
    assert list(sd["_fc.weight"].shape) == [512, 7]  # built by Paddle code: Paddle's [in, out]
    swish = models.shufflenet_v2_swish(num_classes=0, with_pool=False)
    assert isinstance(swish._conv1[2], paddle.nn.Swish)
    assert list(_run(swish, 64).shape) == [1, 1024, 2, 2]
    with pytest.raises(ValueError, match="scale"):
        models.ShuffleNetV2(scale=0.75)


def test_channel_shuffle_interleaves_groups():
    from ferrograd.vision.models.shufflenetv2 import channel_shuffle

    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(1, 6, 1, 1))
    assert channel_shuffle(x, 2).numpy().ravel().tolist() == [0, 3, 1, 4, 2, 5]


def test_mobilenet_v3_blocks_and_scale():
    m = models.mobilenet_v3_small(scale=0.5, num_classes=5)
    assert list(_run(m, 64, batch=2).shape) == [2, 5]
    big = models.MobileNetV3Large(num_classes=0)
    sd = big.state_dict()
    assert list(sd["blocks.3.mid_se.fc1.weight"].shape) == [24, 72, 1, 1]
    assert "blocks.0.expand_conv.0.weight" not in sd  # no expansion when widths agree
    assert list(sd["lastconv.0.weight"].shape) == [960, 160, 1, 1]
    assert big.conv[1]._epsilon == pytest.approx(1e-3)
    assert list(_run(big, 32).shape) == [1, 960, 1, 1]


def test_densenet_count_shapes_keys_and_depths():
    m = models.densenet121()
    assert _counts(m) == (7_978_856, 8_062_504)
    assert list(_run(m, 32).shape) == [1, 1000]
    sd = m.state_dict()
    assert len(sd) == 606
    assert list(sd["db_conv_2.conv2_6.bn_ac_func2._conv.weight"].shape) == [32, 128, 3, 3]
    assert list(sd["tr_conv4_blk.conv_ac_func._conv.weight"].shape) == [512, 1024, 1, 1]
    assert list(sd["batch_norm._mean"].shape) == [1024]
    assert list(sd["out.weight"].shape) == [1024, 1000]  # Paddle's [in, out]
    with pytest.raises(ValueError, match="layers"):
        models.DenseNet(layers=100)


def test_googlenet_three_outputs_and_count():
    m = models.GoogLeNet(num_classes=0)
    out, aux1, aux2 = _run(m, 96)
    assert [list(t.shape) for t in (out, aux1, aux2)] == [[1, 1024, 1, 1], [1, 512, 1, 1],
                                                          [1, 528, 1, 1]]  # fmt: skip
    # Paddle's googlenet() has 11,535,736; its heads (fc_out, out1, out2: 1024x1000 + 1000
    # each; conv_o1 512x128, conv_o2 528x128; fc_o1, fc_o2: 1152x1024 + 1024) 5,569,464
    assert _counts(m) == (11_535_736 - 5_569_464,) * 2
    assert list(m.state_dict())[:2] == ["_conv._conv.weight", "_conv_1._conv.weight"]


def test_inception_v3_count_keys_and_shape():
    m = models.inception_v3(num_classes=0)
    assert _counts(m) == (21_785_568, 21_820_000)
    sd = m.state_dict()
    assert list(sd["inception_stem.conv_1a_3x3.0.weight"].shape) == [32, 3, 3, 3]
    assert list(sd["inception_block_list.10.branch3x3dbl_3b.0.weight"].shape) == [384, 384, 3, 1]
    assert list(_run(m, 75).shape) == [1, 2048, 1, 1]
    # the classifier adds Linear(2048, 1000): Paddle's 23,869,000 stored values in all
    assert 21_820_000 + 2048 * 1000 + 1000 == 23_869_000


@pytest.mark.parametrize(
    "ctor",
    [models.densenet121, models.squeezenet1_0, models.shufflenet_v2_x1_0,
     models.mobilenet_v3_small, models.googlenet, models.inception_v3],
)  # fmt: skip
def test_new_models_refuse_pretrained(ctor):
    with pytest.raises(ValueError, match="pretrained=True is not supported"):
        ctor(pretrained=True)
