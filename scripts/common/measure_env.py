"""What a measurement ran on and from which sources: shared by the benchmark scripts, so
every results/*.json records the machine and the commit the same way."""

import os
import platform
import subprocess
import time


def machine_info():
    """CPU model, core counts, kernel, Python, load average and time of this machine."""
    info = {"cpu_model": None, "cpu_cores_per_socket": None,
            "logical_cpus": os.cpu_count(), "kernel": platform.release(),
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, val = line.partition(":")
                key, val = key.strip(), val.strip()
                if key == "model name" and info["cpu_model"] is None:
                    info["cpu_model"] = val
                elif key == "cpu cores" and info["cpu_cores_per_socket"] is None:
                    info["cpu_cores_per_socket"] = int(val)
    except OSError:
        pass
    try:
        info["loadavg_at_start"] = [float(x) for x in os.getloadavg()]
    except OSError:
        pass
    return info


def git_state(root, paths=("engine", "bench", "selfplay", "CMakeLists.txt")):
    """HEAD commit and whether `paths` differ from it (None, None outside a git checkout):
    the binary timed may include uncommitted changes."""
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", *paths],
                                capture_output=True, text=True, check=True).stdout.strip()
        return head, bool(status)
    except (OSError, subprocess.CalledProcessError):
        return None, None
