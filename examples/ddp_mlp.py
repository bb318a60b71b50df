#!/usr/bin/python3
"""PyTorch DDP on CPU (gloo): a small MLP on synthetic data, two ranks or more.

Run under torchrun, as configs/ddp-mlp.yaml does:

    /usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 \
        examples/ddp_mlp.py --lr 0.1 --epochs 3

Every rank trains on its shard of the same fixed data set; DDP averages the
gradients, so the ranks hold the same weights. After each epoch, rank 0
prints a Trainer-style dict line: the training loss averaged over the
ranks, the evaluation on the held-out set, and the port the ranks met on:

    {'loss': 0.41, 'eval_loss': 0.38, 'eval_accuracy': 0.86, 'epoch': 1, 'master_port': 41234}

The rendezvous port is torchrun's --master_port, whose default the tuner
sets per trial through PET_MASTER_PORT, so the command needs no
--master_port. Only torch, from Debian's python3-torch (1.13, CPU).
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def synthetic(n, features, seed):
    """A fixed binary classification task: a noisy linear rule."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=g)
    w = torch.randn(features, generator=g)
    noise = 0.5 * torch.randn(n, generator=g)
    return x, (x @ w + noise > 0).long()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=float, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)  # the same initial weights on every rank

    x, y = synthetic(2560, 16, seed=0)
    x_train, y_train, x_eval, y_eval = x[:2048], y[:2048], x[2048:], y[2048:]
    x_shard, y_shard = x_train[rank::world], y_train[rank::world]

    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(16, args.hidden), nn.ReLU(),
                      nn.Linear(args.hidden, 2)))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    order = torch.Generator().manual_seed(args.seed + rank)

    for epoch in range(1, int(args.epochs) + 1):
        model.train()
        total, batches = 0.0, 0
        perm = torch.randperm(len(x_shard), generator=order)
        for start in range(0, len(perm), args.batch_size):
            idx = perm[start:start + args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x_shard[idx]), y_shard[idx])
            loss.backward()  # DDP all-reduces the gradients here
            optimizer.step()
            total, batches = total + loss.item(), batches + 1
        train_loss = torch.tensor([total / batches])
        dist.all_reduce(train_loss)  # the sum over the ranks
        model.eval()
        with torch.no_grad():
            logits = model(x_eval)
            eval_loss = loss_fn(logits, y_eval).item()
            accuracy = (logits.argmax(1) == y_eval).float().mean().item()
        if rank == 0:
            print({"loss": round(train_loss.item() / world, 4),
                   "eval_loss": round(eval_loss, 4),
                   "eval_accuracy": round(accuracy, 4), "epoch": epoch,
                   "master_port": int(os.environ["MASTER_PORT"])}, flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
