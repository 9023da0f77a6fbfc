"""The official ``system_info`` block of ``result.json``, from inside the participant's Python.

Loaded by path by ``runner_script.py`` (stdlib and torch only; psutil when installed,
as the official script). Keys and fallbacks as the official script writes them.
"""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import datetime
from typing import Any

import torch

CUDA = torch.cuda.is_available()


def system_info() -> dict[str, Any]:
    """The official ``system_info`` keys (psutil figures only when psutil is installed)."""
    info: dict[str, Any] = {
        "timestamp": datetime.now().isoformat(),
        "python_version": sys.version.split()[0],
        "python_full_version": sys.version,
        "torch_version": torch.__version__,
        "cuda_available": CUDA,
    }
    if CUDA:
        props = torch.cuda.get_device_properties(0)
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        info.update(
            cuda_version=torch.version.cuda or "N/A",
            cudnn_version=str(cudnn) if cudnn else "N/A",
            gpu_count=torch.cuda.device_count(),
            gpu_name=torch.cuda.get_device_name(0),
            gpu_memory_gb=round(props.total_memory / 1024**3, 2),
            gpu_compute_capability=f"{props.major}.{props.minor}",
        )
        try:
            smi = subprocess.run(
                [
                    "nvidia-smi",
                    "--query-gpu=name,driver_version,memory.total",
                    "--format=csv,noheader",
                ],
                capture_output=True,
                text=True,
                timeout=5,
            )
            parts = [p.strip() for p in smi.stdout.strip().split("\n")[0].split(",")]
            if smi.returncode == 0 and len(parts) >= 3:
                info["gpu_driver_version"], info["gpu_memory_total"] = parts[1], parts[2]
        except (OSError, subprocess.SubprocessError):
            pass  # no nvidia-smi: the official script leaves these keys out too
    else:
        info.update(cuda_version="N/A", gpu_count=0, gpu_name="N/A")
    info["cpu_processor"] = platform.processor() or "N/A"
    try:
        import psutil  # optional, as in the official script

        freq = psutil.cpu_freq()
        mem = psutil.virtual_memory()
        info.update(
            cpu_count_physical=psutil.cpu_count(logical=False),
            cpu_count_logical=psutil.cpu_count(logical=True),
            cpu_freq_mhz=round(freq.current, 2) if freq and freq.current else "N/A",
            memory_total_gb=round(mem.total / 1024**3, 2),
            memory_available_gb=round(mem.available / 1024**3, 2),
        )
    except ImportError:
        info.update(cpu_count_physical="N/A", cpu_count_logical="N/A", cpu_freq_mhz="N/A")
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if "model name" in line.lower():
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info.setdefault("cpu_model", platform.processor() or "N/A")
    info.update(
        platform_system=platform.system(),
        platform_release=platform.release(),
        platform_version=platform.version(),
        platform_machine=platform.machine(),
        platform_architecture=platform.architecture()[0],
        ppu_available=False,
        ppu_info={},
    )
    return info
