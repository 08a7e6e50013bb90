"""Reading a config: TOML bytes to a validated `ExperimentConfig`, with errors that name the key."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .models import ExperimentConfig

__all__ = ["parse_config", "load_config"]


def _format_errors(exc: ValidationError, origin: str) -> str:
    lines = []
    for err in exc.errors():
        loc = ""
        for part in err["loc"]:
            loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "missing required key"
        elif err["type"] == "extra_forbidden":
            msg = f"unknown key; valid keys: {', '.join(ExperimentConfig.model_fields)}"
        elif "input" in err and err["type"].endswith("_type"):
            msg += f" (got {err['input']!r})"
        lines.append(f"{loc}: {msg}" if loc and not msg.startswith(loc) else msg)  # a message may name its item
    return f"{origin}: invalid config: " + "; ".join(lines)


def parse_config(data: Mapping[str, Any], origin: str = "<config>") -> ExperimentConfig:
    """Validate a config given as a dict (e.g. parsed TOML).

    Raises:
        ValueError: Any validation error; the message names the key and the valid choices.
    """
    try:
        return ExperimentConfig.model_validate(dict(data))
    except ValidationError as exc:
        raise ValueError(_format_errors(exc, origin)) from None
    except (TypeError, ValueError) as exc:  # raised by a registry class outside pydantic's wrapping
        raise ValueError(f"{origin}: invalid config: {exc}") from None


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a TOML config.

    Raises:
        FileNotFoundError: No such file.
        ValueError: Not UTF-8 (the message names the file, line, column and byte), invalid TOML or
            an invalid config.
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(f"{path}: not UTF-8 (TOML files must be): byte 0x{raw[exc.start]:02x} at line {line}, "
                         f"column {column} (byte offset {exc.start}); save the file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    return parse_config(data, origin=str(path))
