"""The distributed samplers are reachable where each dialect looks for them."""

import ferrograd as fg
from ferrograd.distributed.sampler import DistributedBatchSampler, DistributedSampler


def test_torch_paths():
    from ferrograd.utils.data.distributed import DistributedSampler as D2

    assert fg.utils.data.DistributedSampler is DistributedSampler
    assert D2 is DistributedSampler
    s = fg.utils.data.DistributedSampler(list(range(10)), num_replicas=2, rank=1, shuffle=False)
    assert list(s) == [1, 3, 5, 7, 9]


def test_paddle_path_with_dataloader():
    assert fg.io.DistributedBatchSampler is DistributedBatchSampler
    data = fg.io.TensorDataset([fg.arange(8, dtype="float32")])
    bs = fg.io.DistributedBatchSampler(data, batch_size=2, num_replicas=2, rank=0, shuffle=False)
    loader = fg.io.DataLoader(data, batch_sampler=bs)
    got = [b[0].numpy().tolist() for b in loader]
    assert got == [[0.0, 2.0], [4.0, 6.0]]
