"""What the fake trials of $TUNER_FAKE_STATE use right now (tests only).

fake-card-user registers each trial process there; the fake tools add the
devices of the live ones to what they replay, as the real tools show a
running trial's memory and processes.
"""
import json, os


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def users():
    """[(pid, {variable: value})] for the live registered processes."""
    state = os.environ.get("TUNER_FAKE_STATE")
    if not state or not os.path.isdir(state):
        return []
    out = []
    for name in sorted(os.listdir(state)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(state, name)) as f:
                entry = json.load(f)
        except (OSError, ValueError):
            continue
        if alive(entry["pid"]):
            out.append((entry["pid"], entry))
    return out


def ids(text):
    """The ids of "4,5", "2-3" or "7" (strings: GPU UUIDs stay as they are)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        lo, dash, hi = part.partition("-")
        if dash and lo.isdigit() and hi.isdigit():
            out.extend(str(i) for i in range(int(lo), int(hi) + 1))
        elif part:
            out.append(part)
    return out


def used_by(variable):
    """{device id (text): [pids]} for the devices named by `variable`."""
    out = {}
    for pid, entry in users():
        for device in ids(entry.get(variable, "")):
            out.setdefault(device, []).append(pid)
    return out
