"""Session discovery, summaries, the listing cache, projects/forks and full-text search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loomtui.session import catalog, lineage
from loomtui.session.catalog import SessionSummary, SummaryCache, list_sessions, summarize
from loomtui.session.fulltext import SearchCapped, SearchHit, SearchProgress, search_sessions
from loomtui.session.lineage import group_sessions, matches_filter, parent_path
from loomtui.session.locations import default_session_dirs, discover, sample_dir
from loomtui.session.manager import SessionManager
from loomtui.session.scan import NO_MESSAGES

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
WEATHER = SAMPLES / "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
FORK = SAMPLES / "2026-03-02T11-02-41-907Z_7d3e9f10-2a6b-4c1d-8e5f-9a0b1c2d3e4f.jsonl"
OMP = SAMPLES / "2026-03-03T14-30-12-480Z_0196f2a4c1d87e3b.jsonl"
V1 = SAMPLES / "2025-11-18T16-40-03-512Z_2b9d41c7-6e0a-4f3b-9c8d-1a2b3c4d5e6f.jsonl"


def js(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def write_session(
    path: Path,
    sid: str,
    cwd: str,
    entries: list[dict],
    *,
    ts: str = "2026-01-01T10:00:00.000Z",
    parent: str | None = None,
    extra_header: dict | None = None,
) -> Path:
    header = {"type": "session", "version": 3, "id": sid, "timestamp": ts, "cwd": cwd}
    if parent is not None:
        header["parentSession"] = parent
    header.update(extra_header or {})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(js(o) for o in [header, *entries]) + "\n", encoding="utf-8")
    return path


def chat(*texts: str, start: str = "2026-01-01T10:00", prefix: str = "e") -> list[dict]:
    """A linear user/assistant chain, one minute apart."""
    out: list[dict] = []
    parent = None
    for i, text in enumerate(texts):
        eid = f"{prefix}{i:07d}"
        role = "user" if i % 2 == 0 else "assistant"
        content = text if role == "user" else [{"type": "text", "text": text}]
        out.append(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": f"{start}:{i:02d}.000Z",
                "message": {"role": role, "content": content},
            }
        )
        parent = eid
    return out


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.delenv("OMP_CODING_AGENT_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return h


# where sessions live ------------------------------------------------------------------------


def test_default_dirs_are_pi_and_omp_agent_sessions(home: Path) -> None:
    assert default_session_dirs() == [str(home / ".pi/agent/sessions"), str(home / ".omp/agent/sessions")]


def test_agent_dir_env_vars_expand_a_leading_tilde(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/agents/pi")
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", "/opt/omp")
    assert default_session_dirs() == [str(home / "agents/pi/sessions"), "/opt/omp/sessions"]


def test_discover_reads_direct_files_and_one_level_of_buckets(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    a = write_session(root / "--home-u-proj--" / "a.jsonl", "A", "/home/u/proj", [])
    b = write_session(root / "-tmp-scratch" / "b.jsonl", "B", "/tmp/scratch", [])
    c = write_session(root / "c.jsonl", "C", "/x", [])
    # omp per-session artifacts dir (subagent transcripts) next to its session file: not a bucket
    write_session(root / "--home-u-proj--" / "a" / "agent1.jsonl", "SUB", "/home/u/proj", [])
    write_session(root / "-tmp-scratch" / "b" / "agent2.jsonl", "SUB2", "/tmp/scratch", [])
    write_session(root / "--deep--" / "nested" / "d.jsonl", "D", "/x", [])  # two levels down
    write_session(root / ".hidden.jsonl", "H", "/x", [])
    (root / "notes.txt").write_text("not a session")
    # a second root reaching the same files lists each once
    assert discover([str(root), str(root / "-tmp-scratch")]) == [str(a), str(b), str(c)]
    assert discover([str(tmp_path / "missing")]) == []


# one summary per session ------------------------------------------------------------------


def test_summary_of_branched_pi_sample() -> None:
    s = summarize(str(WEATHER))
    assert s == SessionSummary(
        path=str(WEATHER),
        id="5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19",
        cwd="/home/dev/weather-cli",
        name="Fix forecast crash, add response cache",
        first_message="forecast crashes, pls fix",
        created=1772442845.12,
        modified=1772443970.625,  # 2026-03-02T09:32:50.625Z, the last message entry
        message_count=39,
        branch_count=2,
        parent_session=None,
        version=3,
        entry_count=49,
        size=WEATHER.stat().st_size,
    )
    assert s.title == "Fix forecast crash, add response cache"


def test_summary_counts_match_the_index() -> None:
    for path in (WEATHER, FORK, OMP, V1):
        s = summarize(str(path))
        assert s is not None
        idx = SessionManager.open(str(path)).index
        assert s.message_count == sum(1 for e in idx.entries if e.type == "message")
        assert s.branch_count == sum(1 for e in idx.entries if len(idx.children(e.id)) >= 2)
        assert s.entry_count == len(idx.entries)


def test_summary_of_omp_file_takes_the_title_slot() -> None:
    s = summarize(str(OMP))
    assert s is not None
    assert (s.id, s.cwd, s.name, s.message_count, s.branch_count, s.entry_count) == (
        "0196f2a4c1d87e3b",
        "/home/dev/notes-app",
        "SQLite storage for notes",
        10,
        0,
        20,
    )
    assert s.first_message.startswith("The notes app keeps everything in one notes.json")


def test_a_file_with_omps_title_slot_is_listed_as_omps_wherever_it_lies() -> None:
    """The bundled oh-my-pi sample (outside ~/.omp) read "pi" in the picker's column."""
    s = summarize(str(OMP))
    assert s is not None and s.tool == "omp"
    assert [summarize(str(p)).tool for p in (WEATHER, FORK, V1)] == ["pi", "pi", "pi"]  # type: ignore[union-attr]


def test_a_fresh_export_is_not_listed_as_modified_before_it_was_created(tmp_path: Path) -> None:
    """An export copies older messages into a file made now: the picker read created 20:51,
    modified Mar 02 09:14."""
    path = write_session(tmp_path / "export.jsonl", "X", "/p", chat("q", "a"), ts="2026-03-05T20:51:00.000Z")
    s = summarize(str(path))
    assert s is not None
    assert s.created == catalog.seconds("2026-03-05T20:51:00.000Z") and s.modified == s.created
    grown = write_session(
        tmp_path / "grown.jsonl", "Y", "/p", chat("q", "a", start="2026-03-06T08:00"), ts="2026-03-05T20:51:00.000Z"
    )
    later = summarize(str(grown))
    assert later is not None and later.modified == catalog.seconds("2026-03-06T08:00:01.000Z")  # its last message


def test_a_project_of_runs_counts_runs() -> None:
    """The picker's group header read "OCP runs: example-project  3 sessions"."""
    session = SessionSummary("/s/a.jsonl", "a", "/p", None, "a", 1.0, 1.0, 1, 0, None, 3, 1, 10)
    run = SessionSummary(
        "/r/b.json", "b", "OCP runs", None, "b", 1.0, 1.0, 1, 0, None, 3, 1, 10, tool="ocp", noun="run"
    )
    groups = {g.cwd: g for g in group_sessions([session, run])}
    assert (groups["/p"].noun, groups["OCP runs"].noun) == ("session", "run")


def test_summary_of_fork_and_v1_record_their_lineage() -> None:
    fork = summarize(str(FORK))
    v1 = summarize(str(V1))
    assert fork is not None and v1 is not None
    assert fork.parent_session == (
        "/home/dev/.pi/agent/sessions/--home-dev-weather-cli--/"
        "2026-03-02T09-14-05-120Z_5b0c1e2a-9f3d-4c8e-a1b7-3e6d2f804c19.jsonl"
    )
    assert (v1.version, v1.message_count, v1.branch_count, v1.entry_count) == (1, 11, 0, 14)
    assert v1.parent_session == (
        "/home/dev/.pi/agent/sessions/--home-dev-dotfiles--/"
        "2025-11-17T10-02-11-004Z_8c1f4e2a-3b5d-4a6c-9e7f-0d1c2b3a4f5e.jsonl"
    )
    assert v1.first_message == "My zsh prompt takes almost a second to appear. Profile it."
    assert v1.modified == 1763484161.522  # the last message line's timestamp


def test_latest_session_info_wins_and_an_empty_one_clears(tmp_path: Path) -> None:
    entries = chat("hello", "hi")

    def info(i: int, name: str) -> dict[str, str]:
        return {
            "type": "session_info",
            "id": f"i{i}",
            "parentId": "e0000001",
            "timestamp": "2026-01-01T11:00:00.000Z",
            "name": name,
        }

    p = write_session(tmp_path / "a.jsonl", "A", "/p", entries + [info(1, "first"), info(2, "  second  ")])
    assert summarize(str(p)).name == "second"  # type: ignore[union-attr]
    p = write_session(
        tmp_path / "b.jsonl", "B", "/p", entries + [info(1, "first"), info(2, "")], extra_header={"title": "omp title"}
    )
    assert summarize(str(p)).name == "omp title"  # type: ignore[union-attr]


def test_first_message_skips_role_text_inside_other_lines(tmp_path: Path) -> None:
    entries = [
        {
            "type": "custom",
            "customType": "note",
            "data": {"role": "user", "text": '"role":"user"'},
            "id": "c0",
            "parentId": None,
            "timestamp": "2026-01-01T10:00:00.000Z",
        },
        {
            "type": "message",
            "id": "m1",
            "parentId": "c0",
            "timestamp": "2026-01-01T10:00:01.000Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "line one\n\n  line two"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "text", "text": "tail"},
                ],
            },
        },
    ]
    p = write_session(tmp_path / "a.jsonl", "A", "/p", entries)
    assert summarize(str(p)).first_message == "line one line two tail"  # type: ignore[union-attr]


def test_session_without_messages(tmp_path: Path) -> None:
    p = write_session(
        tmp_path / "a.jsonl",
        "A",
        "/p",
        [
            {
                "type": "model_change",
                "id": "m0",
                "parentId": None,
                "timestamp": "2026-01-01T10:00:00.100Z",
                "provider": "anthropic",
                "modelId": "claude-sonnet-4-5",
            }
        ],
    )
    s = summarize(str(p))
    assert s is not None
    assert (s.first_message, s.message_count, s.modified, s.created) == (NO_MESSAGES, 0, s.created, 1767261600.0)


def test_other_key_orders_give_the_same_summary(tmp_path: Path) -> None:
    """Files written by json.dumps defaults or with id/parentId last (pi-migrated files)."""
    entries = chat("build it", "built", "now test", "tested")
    entries.append(
        {
            "type": "message",
            "id": "x1",
            "parentId": "e0000001",
            "timestamp": "2026-01-01T10:09:00.000Z",
            "message": {"role": "user", "content": "other branch"},
        }
    )
    compact = write_session(tmp_path / "a.jsonl", "A", "/p", entries)
    spaced = tmp_path / "b.jsonl"
    lines = [
        json.dumps({"type": "session", "version": 3, "id": "A", "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/p"})
    ]
    for e in entries:
        moved = {k: v for k, v in e.items() if k not in ("id", "parentId")}
        moved.update(id=e["id"], parentId=e["parentId"])
        lines.append(json.dumps(moved))
    spaced.write_text("\n".join(lines) + "\n\n")
    a, b = summarize(str(compact)), summarize(str(spaced))
    assert a is not None and b is not None
    assert (a.message_count, a.branch_count, a.entry_count, a.modified) == (5, 1, 5, 1767262140.0)
    assert (b.message_count, b.branch_count, b.entry_count, b.modified, b.first_message) == (
        a.message_count,
        a.branch_count,
        a.entry_count,
        a.modified,
        a.first_message,
    )


def test_indented_and_mixed_lines_are_counted_as_the_index_reads_them(tmp_path: Path) -> None:
    """Lines with leading spaces (JSON.parse trims them) count like any other: they were once
    read as 'no entries'. Every layout goes through the one scanner, and agrees with the index."""
    entries = chat("build it", "built", "now test", "tested")
    entries.append(
        {
            "type": "custom",
            "customType": "x",
            "id": "c1",
            "parentId": "e0000001",
            "timestamp": "2026-01-01T10:09:00.000Z",
            "data": {},
        }
    )
    header = {"type": "session", "version": 3, "id": "A", "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/p"}
    indented = tmp_path / "indented.jsonl"
    indented.write_text("\n".join("  " + js(o) for o in [header, *entries]) + "\n")
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join([js(header), *(("\t" if k % 2 else "") + js(o) for k, o in enumerate(entries))]))
    for path in (indented, mixed):
        s = summarize(str(path))
        index = SessionManager.open(str(path)).index
        assert s is not None
        assert s.entry_count == len(index.entries) == 5
        assert s.message_count == 4
        assert s.branch_count == 1  # e0000001 has two children
        assert s.first_message == "build it"
        assert s.modified == 1767261603.0  # the last message (10:00:03), not the custom entry (10:09)


def test_non_sessions_are_not_listed(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "garbage.jsonl").write_text("hello\n")
    (tmp_path / "v4.jsonl").write_text(js({"kind": "header", "version": 4, "id": "x", "createdAt": 1}) + "\n")
    (tmp_path / "noid.jsonl").write_text(js({"type": "session", "version": 3}) + "\n")
    ok = write_session(tmp_path / "ok.jsonl", "OK", "/p", chat("hi"))
    assert [s.path for s in list_sessions([str(tmp_path)], cache=False)] == [str(ok)]


# the cache ----------------------------------------------------------------------------------


def test_listing_again_reads_only_changed_files(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = home / ".pi/agent/sessions/--p--"
    a = write_session(root / "a.jsonl", "A", "/p", chat("alpha", "ok", start="2026-01-01T10:00"))
    b = write_session(root / "b.jsonl", "B", "/p", chat("beta", "ok", start="2026-01-02T10:00"))
    write_session(root / "bad.jsonl", "X", "/p", []).write_text("not json\n")
    first = list_sessions()
    assert [s.id for s in first] == ["B", "A"]
    assert os.path.isfile(home.parent / "cache" / "loomtui" / "sessions.json")

    reads: list[str] = []
    real = catalog.summarize
    monkeypatch.setattr(catalog, "summarize", lambda p: reads.append(os.path.basename(p)) or real(p))
    assert list_sessions() == first
    assert reads == []  # nothing changed: the cache answered, also for the invalid file

    with open(a, "a") as f:
        f.write(
            js(
                {
                    "type": "message",
                    "id": "more",
                    "parentId": "e0000001",
                    "timestamp": "2026-01-03T10:00:00.000Z",
                    "message": {"role": "user", "content": "again"},
                }
            )
            + "\n"
        )
    again = list_sessions()
    assert reads == ["a.jsonl"]
    assert [(s.id, s.message_count) for s in again] == [("A", 3), ("B", 2)]

    os.unlink(b)
    assert [s.id for s in list_sessions()] == ["A"]
    assert str(b) not in SummaryCache().rows


def test_a_broken_cache_file_is_ignored(home: Path) -> None:
    write_session(home / ".pi/agent/sessions/--p--/a.jsonl", "A", "/p", chat("alpha"))
    cache = home.parent / "cache" / "loomtui" / "sessions.json"
    cache.parent.mkdir(parents=True)
    cache.write_text("{not json")
    assert [s.id for s in list_sessions()] == ["A"]
    assert json.loads(cache.read_text())["version"] == catalog.CACHE_VERSION


def test_list_sessions_uses_pi_omp_and_extra_dirs(home: Path, tmp_path: Path) -> None:
    write_session(home / ".pi/agent/sessions/--p--/a.jsonl", "PI", "/p", chat("a", start="2026-01-01T10:00"))
    write_session(home / ".omp/agent/sessions/-p/b.jsonl", "OMP", "/p", chat("b", start="2026-01-02T10:00"))
    write_session(tmp_path / "elsewhere/c.jsonl", "EXTRA", "/q", chat("c", start="2026-01-03T10:00"))
    assert [s.id for s in list_sessions(extra=[str(tmp_path / "elsewhere")])] == ["EXTRA", "OMP", "PI"]


# projects and forks -----------------------------------------------------------------------


def _summary(sid: str, cwd: str, modified: float, parent: str | None = None, path: str | None = None) -> SessionSummary:
    return SessionSummary(path or f"/s/{sid}.jsonl", sid, cwd, None, sid, modified, modified, 1, 0, parent, 3, 1, 10)


def test_groups_by_header_cwd_newest_project_first_forks_threaded() -> None:
    sessions = [
        _summary("root1", "/a-b", 10),
        _summary("fork1", "/a-b", 30, parent="/s/root1.jsonl"),  # pi: parent path
        _summary("fork1a", "/a-b", 12, parent="fork1"),  # omp: parent id
        _summary("fork2", "/a-b", 20, parent="/elsewhere/root1.jsonl"),  # moved file: same name
        _summary("root2", "/a-b", 25),
        _summary("other", "/a/b", 40),  # same pi bucket name as /a-b, another project
        _summary("cross", "/a/b", 5, parent="/s/root2.jsonl"),  # parent in another project
        _summary("lost", "/a/b", 35, parent="/gone/x.jsonl"),
    ]
    groups = group_sessions(sessions)
    assert [(g.cwd, [(s.id, d) for s, d in g.items]) for g in groups] == [
        ("/a/b", [("other", 0), ("lost", 0), ("cross", 0)]),
        ("/a-b", [("root1", 0), ("fork1", 1), ("fork1a", 2), ("fork2", 1), ("root2", 0)]),
    ]


def test_lineage_cycles_do_not_hide_sessions() -> None:
    sessions = [_summary("x", "/p", 2, parent="y"), _summary("y", "/p", 1, parent="x")]
    [g] = group_sessions(sessions)
    assert [(s.id, d) for s, d in g.items] == [("x", 0), ("y", 0)]


def test_parent_path_resolves_listed_sessions_by_file_name() -> None:
    listed = [summarize(str(p)) for p in (WEATHER, FORK, OMP, V1)]
    fork, v1 = listed[1], listed[3]
    assert fork is not None and v1 is not None
    assert parent_path(fork, listed) == str(WEATHER)  # type: ignore[arg-type]
    assert parent_path(v1, listed) is None  # type: ignore[arg-type]


def test_filter_matches_name_first_message_and_project() -> None:
    s = SessionSummary(
        "/s/a.jsonl", "A", "/home/u/Weather-CLI", "Fix Crash", "KeyError on hourly data", 0, 0, 1, 0, None, 3, 1, 1
    )
    assert matches_filter(s, [])
    assert matches_filter(s, ["crash", "hourly"])
    assert matches_filter(s, ["weather-cli"])
    assert not matches_filter(s, ["crash", "daily"])


def test_samples_are_bundled_and_list_threaded() -> None:
    assert sample_dir() == str(SAMPLES)
    groups = group_sessions(list_sessions([sample_dir()], cache=False))
    assert [(g.cwd, [(s.title, d) for s, d in g.items]) for g in groups] == [
        ("/home/dev/notes-app", [("SQLite storage for notes", 0)]),
        (
            "/home/dev/weather-cli",
            [("Fix forecast crash, add response cache", 0), ("Forecast cache: in-memory variant", 1)],
        ),
        ("/home/dev/dotfiles", [("My zsh prompt takes almost a second to appear. Profile it.", 0)]),
    ]


# full-text search -------------------------------------------------------------------------


def test_search_finds_entries_in_all_sessions_with_progress() -> None:
    paths = [str(p) for p in (WEATHER, FORK, OMP, V1)]
    out = list(search_sessions(paths, "TTL dict"))
    hits = [h for h in out if isinstance(h, SearchHit)]
    progress = [p for p in out if isinstance(p, SearchProgress)]
    assert [(os.path.basename(h.path)[:8], h.entry_id, h.line, h.role) for h in hits] == [
        ("2026-03-", "70e3c291", 19, "assistant"),
    ]
    assert hits[0].snippet == "…expire; write a tiny TTL dict. I'll add a TTL dictionary in `api.py` rather than"
    assert progress == [
        SearchProgress(1, 4, 0),
        SearchProgress(2, 4, 1),
        SearchProgress(3, 4, 1),
        SearchProgress(4, 4, 1),
    ]


def test_search_is_case_insensitive_and_needs_every_token() -> None:
    hits = [h for h in search_sessions([str(WEATHER)], "keyerror HOURLY") if isinstance(h, SearchHit)]
    assert [(h.entry_id, h.role, h.snippet) for h in hits] == [
        ("e1f2a3b4", "user", "…Oslo` crashes with a KeyError when the API returns no hourly data (it happens at"),
        ("f5a6b7c8", "assistant", "The user reports a KeyError on missing hourly data. Find where `hourly` is read."),
        ("4e5f6a7b", "toolResult", "…== [] E KeyError: 'hourly' src/weather_cli/forecast.py:8: KeyError 1 failed, 2 p"),
        ("9a0b1c2d", "assistant", "…instead of raising `KeyError`. The existing test `test_forecast_without_hourly`"),
    ]


def test_search_in_v1_file_gives_the_ids_the_reader_assigns() -> None:
    hits = [h for h in search_sessions([str(V1)], "measure again") if isinstance(h, SearchHit)]
    sm = SessionManager.open(str(V1))
    [hit] = hits
    entry = sm.index.by_id[hit.entry_id]  # type: ignore[index]
    assert (hit.line, entry.line, entry.text) == (11, 11, "Measure again.")


def test_search_stops_at_the_limit_and_handles_no_tokens() -> None:
    out = list(search_sessions([str(WEATHER), str(FORK)], "weather", limit=3))
    assert sum(isinstance(h, SearchHit) for h in out) == 3
    assert out[-1] == SearchProgress(2, 2, 3)
    assert list(search_sessions([str(WEATHER)], "   ")) == [SearchProgress(1, 1, 0)]


def test_a_capped_search_says_where_it_stopped() -> None:
    every = [h for h in search_sessions([str(WEATHER)], "weather", per_session=10_000) if isinstance(h, SearchHit)]
    assert len(every) > 2
    out = list(search_sessions([str(WEATHER), str(FORK)], "weather", per_session=2))
    assert SearchCapped(str(WEATHER), 2) in out and sum(isinstance(h, SearchHit) for h in out[:3]) == 2
    out = list(search_sessions([str(WEATHER), str(FORK)], "weather", limit=2))
    assert [h for h in out if isinstance(h, SearchCapped)] == [SearchCapped(str(WEATHER), 2), SearchCapped(None, 2)]
    assert not [
        h for h in search_sessions([str(WEATHER)], "weather", per_session=len(every)) if isinstance(h, SearchCapped)
    ]  # exactly the cap: nothing more to show


def test_catalog_does_not_import_textual() -> None:
    code = (
        "import sys, loomtui.session.catalog, loomtui.session.lineage, loomtui.session.fulltext; "
        "sys.exit('textual' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_find_session_file_for_a_parent_reference(home: Path, tmp_path: Path) -> None:
    bucket = home / ".pi/agent/sessions/--p--"
    parent = write_session(bucket / "2026-01-01T10-00-00-000Z_P.jsonl", "P", "/p", chat("parent"))
    child = write_session(
        tmp_path / "moved/child.jsonl", "C", "/p", chat("child"), parent="/old/machine/2026-01-01T10-00-00-000Z_P.jsonl"
    )
    assert lineage.find_session_file(str(parent)) == str(parent)  # the path itself
    assert lineage.find_session_file("/old/machine/2026-01-01T10-00-00-000Z_P.jsonl", near=str(child)) == str(parent)
    assert lineage.find_session_file("P", near=str(child)) == str(parent)  # omp: the parent's id
    assert lineage.find_session_file("child.jsonl", near=str(child)) == str(child)  # relative to the file
    assert lineage.find_session_file("/nowhere/x.jsonl", near=str(child)) is None


def test_list_sessions_reports_progress_for_files_it_reads(tmp_path: Path) -> None:
    for i in range(250):
        write_session(tmp_path / f"--p--/s{i:03d}.jsonl", f"S{i}", "/p", chat(f"hello {i}"))
    cache = SummaryCache(str(tmp_path / "cache.json"))
    calls: list[tuple[int, int]] = []
    assert len(list_sessions([str(tmp_path)], cache=cache, progress=lambda d, t: calls.append((d, t)))) == 250
    assert calls == [(100, 250), (200, 250)]
    calls.clear()
    list_sessions(
        [str(tmp_path)], cache=SummaryCache(str(tmp_path / "cache.json")), progress=lambda d, t: calls.append((d, t))
    )
    assert calls == []  # everything came from the cache
