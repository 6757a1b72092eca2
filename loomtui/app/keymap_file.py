"""Reading ``keymap.toml``: the user's overrides of the bindings in ``keymap.SPECS``, and what
is wrong with the file (reported when the app starts, never fatal)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.keys import key_to_character

from loomtui.app.keymap import SPEC_BY_ID
from loomtui.app.themes import config_dir
from loomtui.session.errors import LoomError
from loomtui.session.fileio import read_regular


def keymap_path() -> Path:
    return config_dir() / "keymap.toml"


def load_user_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """The user's overrides (id → keys) and what was wrong with the file, if anything."""
    path = path or keymap_path()
    try:
        text = read_regular(str(path)).decode("utf-8", "replace")
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: {exc.strerror or exc}"]
    except LoomError as exc:  # a FIFO, a device: refused, never waited on
        return {}, [str(exc)]
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"{path.name}: not valid TOML ({exc}); using the default keys"]
    table = data.get("keys", data) if isinstance(data.get("keys"), dict) else data
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in table.items():
        if binding_id == "keys":
            continue
        wanted, problem = _override(binding_id, keys, path.name)
        if problem:
            problems.append(problem)
        if wanted:
            keymap[binding_id] = ",".join(wanted)
    return keymap, problems


def _override(binding_id: str, keys: object, file: str) -> tuple[list[str], str | None]:
    """The keys one entry of the file binds (none when it is refused) and what was wrong."""
    if binding_id not in SPEC_BY_ID:
        return [], f"{file}: unknown binding id {binding_id!r}"
    if isinstance(keys, list):
        keys = ",".join(str(k) for k in keys)
    if not isinstance(keys, str) or not keys.strip():
        return [], f'{file}: {binding_id} needs a key string like "ctrl+x"'
    wanted = [k.strip() for k in keys.split(",") if k.strip()]
    problems = []
    lost = [k for k in wanted if k.lower() in NEVER_DELIVERED]
    if lost:
        arrives = "; ".join(f"{k} arrives as {NEVER_DELIVERED[k.lower()]}" for k in lost)
        problems.append(f"a terminal never sends {', '.join(lost)} as such ({arrives}); use another key")
    typing = [k for k in wanted if types_text(k)] if SPEC_BY_ID[binding_id].scope in SEARCHING_SCOPES else []
    if typing:
        problems.append(
            f"{', '.join(typing)} types into the search; use a key that never types (alt+…, ctrl+…, an F-key)"
        )
    if not problems:
        return wanted, None
    return [k for k in wanted if k not in lost and k not in typing], f"{file}: {binding_id}: " + "; ".join(problems)


#: Alt keys a terminal sends as ESC and a character that Textual reads as another key, so a
#: binding on them never fires: ESC b and ESC f are iTerm's natural-editing Ctrl+← / Ctrl+→
#: (what xterm and tmux send for Alt+B and Alt+F), ESC DEL is Ctrl+W, ESC Tab is Shift+Tab, ESC
#: ESC is Esc (tests/app/test_keys.py checks this against Textual's own table; ESC and a digit or
#: punctuation mark is that Alt key: ``widgets/search_keys.read_alt_sequences_as_alt``)
NEVER_DELIVERED: dict[str, str] = {
    "alt+b": "ctrl+left",
    "alt+f": "ctrl+right",
    "alt+backspace": "ctrl+w",
    "alt+tab": "shift+tab",
    "alt+escape": "escape",
}

#: where every printable key types into the tree's search (the browser and what it contains)
SEARCHING_SCOPES = frozenset({"tree", "browser", "detail"})


def types_text(key: str) -> bool:
    """Whether ``key`` (a Textual key name: ``m``, ``shift+a``, ``question_mark``) types a
    character, i.e. goes into a search instead of acting."""
    name = key.lower().removeprefix("shift+")
    if name in ("space", "tab", "enter", "escape", "backspace", "delete"):
        return name == "space"
    char = key_to_character(name)
    return char is not None and char.isprintable()
