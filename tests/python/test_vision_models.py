"""ferrograd.vision.models: Paddle's model zoo (shapes, parameter counts, state_dict names)."""

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import models


def _count(m):
    return sum(p.numel() for p in m.parameters())


def test_reachable_as_paddle_vision():
    assert paddle.vision.models.resnet18 is models.resnet18
    assert paddle.vision.models.LeNet is models.LeNet
    assert paddle.vision.resnet18 is models.resnet18


def test_lenet_shape_and_count():
    m = models.LeNet()
    assert list(m(paddle.randn([2, 1, 28, 28])).shape) == [2, 10]
    assert _count(m) == 61610
    keys = list(m.state_dict())
    assert keys[:2] == ["features.0.weight", "features.0.bias"]
    assert "fc.2.weight" in keys
    feats = models.LeNet(num_classes=0)(paddle.randn([1, 1, 28, 28]))
    assert list(feats.shape) == [1, 16, 5, 5]


def test_lenet_training_step_decreases_loss():
    paddle.seed(0)
    m = models.LeNet()
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=m.parameters())
    x = paddle.randn([8, 1, 28, 28])
    y = paddle.to_tensor(np.arange(8) % 10)
    loss_fn = paddle.nn.CrossEntropyLoss()
    losses = []
    for _ in range(3):
        loss = loss_fn(m(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def test_resnet18_shape_count_and_keys():
    m = models.resnet18()
    assert _count(m) == 11_689_512
    keys = set(m.state_dict())
    for k in [
        "conv1.weight",
        "bn1._mean",
        "bn1._variance",
        "layer1.0.conv1.weight",
        "layer2.0.downsample.0.weight",
        "layer2.0.downsample.1._mean",
        "layer4.1.bn2.weight",
        "fc.weight",
        "fc.bias",
    ]:
        assert k in keys, k
    small = models.resnet18(num_classes=10)
    small.eval()
    assert list(small(paddle.randn([2, 3, 32, 32])).shape) == [2, 10]


def test_resnet50_count_and_bottleneck_keys():
    m = models.resnet50()
    assert _count(m) == 25_557_032
    assert "layer1.0.conv3.weight" in m.state_dict()
    assert list(m.state_dict()["layer1.0.conv3.weight"].shape) == [256, 64, 1, 1]


def test_resnet_paddle_signature_without_head():
    m = models.ResNet(models.BasicBlock, depth=18, num_classes=0, with_pool=False)
    assert list(m(paddle.randn([1, 3, 32, 32])).shape) == [1, 512, 1, 1]
    assert not hasattr(m, "fc")
    with pytest.raises(ValueError, match="depth"):
        models.ResNet(models.BasicBlock, depth=20)


@pytest.mark.parametrize(
    "ctor",
    [models.resnet18, models.vgg16, models.mobilenet_v1, models.mobilenet_v2, models.alexnet],
)
def test_pretrained_raises_clearly(ctor):
    with pytest.raises(ValueError, match="pretrained=True is not supported"):
        ctor(pretrained=True)


def test_vgg_features_and_keys():
    m = models.vgg11(batch_norm=True, num_classes=0)
    assert list(m(paddle.randn([2, 3, 32, 32])).shape) == [2, 512, 7, 7]
    keys = list(m.state_dict())
    assert keys[:6] == [
        "features.0.weight",
        "features.0.bias",
        "features.1.weight",
        "features.1.bias",
        "features.1._mean",
        "features.1._variance",
    ]
    # conv parameters of configuration A: sum of 3x3 convs with bias, plus BN affine
    cfg = [64, 128, 256, 256, 512, 512, 512, 512]
    cin, expected = 3, 0
    for c in cfg:
        expected += cin * c * 9 + c + 2 * c
        cin = c
    assert _count(m) == expected


def test_mobilenets_shapes_counts_and_keys():
    v1 = models.mobilenet_v1()
    assert _count(v1) == 4_231_976
    k1 = set(v1.state_dict())
    assert {
        "conv1.0.weight",
        "conv1.1._mean",
        "conv2_1._depthwise_conv.0.weight",
        "conv6._pointwise_conv.1.bias",
        "fc.weight",
    } <= k1
    v2 = models.mobilenet_v2()
    assert _count(v2) == 3_504_872
    k2 = set(v2.state_dict())
    assert {
        "features.0.0.weight",
        "features.1.conv.0.0.weight",
        "features.18.1._variance",
        "classifier.1.weight",
    } <= k2
    for m in (
        models.mobilenet_v1(scale=0.25, num_classes=7),
        models.mobilenet_v2(scale=0.5, num_classes=7),
    ):
        m.eval()
        assert list(m(paddle.randn([2, 3, 32, 32])).shape) == [2, 7]


def test_resnext_count_and_grouped_conv():
    m = models.resnext50_32x4d()
    assert _count(m) == 25_028_904  # torchvision's / Paddle's published count
    assert list(m.layer1[0].conv2.weight.shape) == [128, 4, 3, 3]
    assert models.wide_resnet50_2 is paddle.vision.models.wide_resnet50_2
