#!/usr/bin/env python3
"""A stand-in for a Hugging Face Trainer script (run_glue.py and the like).

Takes the Trainer's arguments and writes what transformers writes, without
torch: the dict lines on stdout (raw floats as in 4.4x, or the .4g strings
of 5.x), the progress bar on stderr, checkpoint-N/trainer_state.json at each
save, the "***** train/eval metrics *****" blocks and eval_results.json at
the end. --resume_from_checkpoint really continues: global step, epoch and
log_history come from the checkpoint and finished epochs are not trained
again. Every epoch it trains is appended to <output_dir>/epochs_trained.jsonl
so that tests can count them. The curve is deterministic: eval_f1 is best at
learning rate 3e-5 and rises with the epochs.
"""
import argparse
import json
import math
import os
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--output_dir", required=True)
    p.add_argument("--learning_rate", type=float, default=5e-5)
    p.add_argument("--num_train_epochs", type=float, default=3)
    p.add_argument("--per_device_train_batch_size", type=int, default=8)
    p.add_argument("--eval_strategy", "--evaluation_strategy", default="epoch")
    p.add_argument("--save_strategy", default="epoch")
    p.add_argument("--logging_strategy", default="epoch")
    p.add_argument("--resume_from_checkpoint", default=None)
    p.add_argument("--overwrite_output_dir", action="store_true")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--do_train", action="store_true")
    p.add_argument("--do_eval", action="store_true")
    # Not Trainer arguments: what to imitate and how fast.
    p.add_argument("--transformers_version", default="4.45",
                   help="4.45: raw floats; 5: every float a .4g string")
    p.add_argument("--gaudi", action="store_true",
                   help="GaudiTrainer's memory keys (numpy 2 reprs)")
    p.add_argument("--train_samples", type=int, default=3668)  # MRPC
    p.add_argument("--epoch_seconds", type=float, default=0.05)
    p.add_argument("--fractional_epochs", action="store_true",
                   help="epochs at a boundary read 0.9996, as with "
                        "gradient accumulation")
    # run_glue.py's other arguments (model, task, Gaudi flags) are accepted
    # and ignored, so that a shipped config runs unchanged against it.
    args, _ = p.parse_known_args(argv)
    return args


def quality(lr, batch):
    distance = math.log10(lr / 3e-5)
    return max(0.5, 0.92 - 0.06 * distance * distance - 0.002 * abs(batch - 16))


def fmt_value(value, version):
    if version.startswith("5"):
        return repr(f"{value:.4g}")
    return repr(value)


def dict_line(entries, version, numpy_keys=()):
    parts = []
    for key, value in entries:
        if key in numpy_keys:
            text = f"np.float64({value!r})"
        else:
            text = fmt_value(value, version)
        parts.append(f"{key!r}: {text}")
    return "{" + ", ".join(parts) + "}"


def metrics_block(split, metrics):
    print(f"***** {split} metrics *****")
    width = max(len(k) for k in metrics)
    for key in sorted(metrics):
        value = metrics[key]
        if key.endswith("_runtime"):
            hours, rest = divmod(value, 3600)
            minutes, seconds = divmod(rest, 60)
            text = f"{int(hours)}:{int(minutes):02d}:{seconds:05.2f}"
        elif isinstance(value, float):
            text = str(round(value, 4))
        else:
            text = str(value)
        print(f"  {key:<{width}} = {text:>10}")


class Trainer:
    def __init__(self, args):
        self.args = args
        self.steps_per_epoch = math.ceil(args.train_samples / args.per_device_train_batch_size)
        self.max_steps = int(self.steps_per_epoch * args.num_train_epochs)
        self.global_step = 0
        self.log_history = []
        self.q = quality(args.learning_rate, args.per_device_train_batch_size)

    def epoch_at(self, step):
        epoch = step / self.steps_per_epoch
        if self.args.fractional_epochs and step % self.steps_per_epoch == 0:
            epoch -= 0.0004
        return epoch

    def resume(self, checkpoint):
        with open(os.path.join(checkpoint, "trainer_state.json")) as f:
            state = json.load(f)
        self.global_step = state["global_step"]
        self.log_history = state["log_history"]
        print(f"Continuing training from checkpoint, will skip to saved "
              f"global_step {self.global_step}", file=sys.stderr)

    def log(self, logs):
        version = self.args.transformers_version
        epoch = self.epoch_at(self.global_step)
        printed_epoch = round(epoch, 2) if not version.startswith("5") else epoch
        entries = list(logs.items()) + [("epoch", printed_epoch)]
        numpy_keys = ()
        if self.args.gaudi:
            memory = [("memory_allocated (GB)", 5.37),
                      ("max_memory_allocated (GB)", 8.91),
                      ("total_memory_available (GB)", 31.27)]
            entries += memory
            numpy_keys = tuple(k for k, _ in memory)
        print(dict_line(entries, version, numpy_keys))
        self.log_history.append({**logs, "epoch": epoch, "step": self.global_step})

    def evaluate(self, epoch_index):
        f1 = self.q * (1 - 0.5 * math.exp(-epoch_index))
        return {"eval_loss": 0.7 * math.exp(-0.5 * epoch_index) * (1.3 - self.q),
                "eval_accuracy": f1 - 0.04, "eval_f1": f1, "eval_runtime": 1.203,
                "eval_samples_per_second": 339.2, "eval_steps_per_second": 42.4}

    def save(self):
        path = os.path.join(self.args.output_dir, f"checkpoint-{self.global_step}")
        os.makedirs(path, exist_ok=True)
        for name in ("model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth"):
            with open(os.path.join(path, name), "wb") as f:
                f.write(b"\0" * 64)
        state = {"best_global_step": None, "best_metric": None,
                 "epoch": self.epoch_at(self.global_step), "eval_steps": 500,
                 "global_step": self.global_step, "is_hyper_param_search": False,
                 "log_history": self.log_history, "logging_steps": 500,
                 "max_steps": self.max_steps,
                 "num_train_epochs": self.args.num_train_epochs,
                 "save_steps": 500, "total_flos": 1.2e15,
                 "train_batch_size": self.args.per_device_train_batch_size}
        with open(os.path.join(path, "trainer_state.json"), "w") as f:
            f.write(json.dumps(state, indent=2, sort_keys=True) + "\n")

    def record_epoch(self, epoch_index):
        with open(os.path.join(self.args.output_dir, "epochs_trained.jsonl"), "a") as f:
            f.write(json.dumps({"epoch": epoch_index, "global_step": self.global_step,
                                "pid": os.getpid()}) + "\n")

    def train(self):
        args = self.args
        first_epoch = self.global_step // self.steps_per_epoch
        epochs = int(math.ceil(args.num_train_epochs))
        start = time.time()
        for epoch_index in range(first_epoch + 1, epochs + 1):
            for tick in range(10):
                time.sleep(args.epoch_seconds / 10)
                done = int((tick + 1) * self.steps_per_epoch / 10)
                sys.stderr.write(f"\r{int(100 * (epoch_index - 1 + done / self.steps_per_epoch) / epochs)}%"
                                 f"|####| {self.global_step + done}/{self.max_steps}")
            self.global_step = epoch_index * self.steps_per_epoch
            lr_now = args.learning_rate * (1 - self.global_step / self.max_steps)
            loss = 0.7 * math.exp(-0.5 * epoch_index) * (1.3 - self.q) + 0.05
            self.record_epoch(epoch_index)
            if args.logging_strategy == "epoch":
                self.log({"loss": round(loss, 4), "grad_norm": 1.234 / epoch_index,
                          "learning_rate": lr_now})
            if args.eval_strategy == "epoch":
                self.log(self.evaluate(epoch_index))
            if args.save_strategy == "epoch":
                self.save()
        sys.stderr.write("\n")
        runtime = time.time() - start + 0.001
        train = {"train_runtime": round(runtime, 4),
                 "train_samples_per_second": round(args.train_samples * epochs / runtime, 3),
                 "train_steps_per_second": round(self.max_steps / runtime, 3),
                 "train_loss": 0.4123}
        self.log(train)
        return train


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.output_dir, exist_ok=True)
    trainer = Trainer(args)
    if args.resume_from_checkpoint:
        trainer.resume(args.resume_from_checkpoint)
    train = trainer.train()
    metrics_block("train", {**train, "epoch": float(trainer.epoch_at(trainer.global_step)),
                            "total_flos": "4490144GF", "train_samples": args.train_samples})
    final = trainer.evaluate(int(math.ceil(args.num_train_epochs)))
    final["epoch"] = float(trainer.epoch_at(trainer.global_step))
    metrics_block("eval", {**final, "eval_samples": 408})
    with open(os.path.join(args.output_dir, "eval_results.json"), "w") as f:
        json.dump(final, f, indent=4, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
