"""The picker's filter as pi's /resume search: every message's text and the id match exactly,
the name and project fuzzily, the best match first."""

from __future__ import annotations

from pathlib import Path

from loomtui.app.widgets.session_list import NOTE, PROJECT, SESSION
from tests.app.test_picker import HostApp, env, rows, sessions, settle, start, write  # noqa: F401


async def test_the_filter_matches_every_message_and_ids_exactly(env: Path, tmp_path: Path) -> None:
    d = tmp_path / "s"
    write(
        d / "2020-01-05T10-00-00-000Z_aaa.jsonl",
        "5b0c1e2a-9f3d",
        "/home/u/webapp",
        "2020-01-05",
        ["Set up the cluster", "I wrote the kubernetes manifests", "thanks"],
        name="Cluster setup",
    )
    write(
        d / "2020-01-06T10-00-00-000Z_bbb.jsonl",
        "77aa0000-1111",
        "/home/u/webapp",
        "2020-01-06",
        ["Fix the login page", "Done"],
    )
    app = HostApp([str(d)], only=True)
    async with app.run_test(size=(100, 20)) as pilot:
        picker = await start(app, pilot)
        await settle(app, pilot)  # the messages' text is read in the background
        await pilot.press(*"kubernetes")  # only in a later assistant message
        assert rows(picker) == [(PROJECT, 1, "/home/u/webapp"), (SESSION, 0, "Cluster setup")]
        picker.input.value = "kbrnts"  # scattered letters of a message: no match
        await pilot.pause()
        assert [k for k, *_ in rows(picker)] == [NOTE]
        picker.input.value = "9f3d"  # a piece of the id
        await pilot.pause()
        assert rows(picker)[1:] == [(SESSION, 0, "Cluster setup")]
        picker.input.value = "5b0e"  # scattered in the id: no match
        await pilot.pause()
        assert [k for k, *_ in rows(picker)] == [NOTE]
        picker.input.value = "hmwbp"  # the project, fuzzily: both, newest first
        await pilot.pause()
        assert rows(picker)[1:] == [(SESSION, 0, "Fix the login page"), (SESSION, 0, "Cluster setup")]
        picker.input.value = "setup"  # in the name beats in the messages
        await pilot.pause()
        assert rows(picker)[1:] == [(SESSION, 0, "Cluster setup")]
        picker.input.value = "the"  # a name hit ("Cluster setup" has none) beats text: newest first
        await pilot.pause()
        assert rows(picker)[1:] == [(SESSION, 0, "Fix the login page"), (SESSION, 0, "Cluster setup")]


async def test_a_bad_regular_expression_is_said_to_be_one(env: Path, tmp_path: Path) -> None:
    """`re:(` answered "No session matches “re:(”", as if the pattern had been searched."""
    d = tmp_path / "s"
    write(d / "2020-01-05T10-00-00-000Z_aaa.jsonl", "5b0c1e2a", "/home/u/webapp", "2020-01-05", ["Set up"])
    app = HostApp([str(d)], only=True)
    async with app.run_test(size=(120, 20)) as pilot:
        picker = await start(app, pilot)
        picker.input.value = "re:("
        await pilot.pause()
        [(kind, _n, hint)] = rows(picker)
        assert kind == NOTE and "not a valid regular expression" in hint and "No session matches" not in hint
        picker.input.value = "re:set"
        await pilot.pause()
        assert rows(picker)[1:] == [(SESSION, 0, "Set up")]


async def test_one_session_is_one_session_in_the_full_text_search(env: Path, tmp_path: Path) -> None:
    """With one session listed, Ctrl+F's title read "Full-text search  ·  1 sessions"."""
    d = tmp_path / "s"
    write(d / "2020-01-05T10-00-00-000Z_aaa.jsonl", "5b0c1e2a", "/home/u/webapp", "2020-01-05", ["Set up"])
    app = HostApp([str(d)], only=True)
    async with app.run_test(size=(120, 20)) as pilot:
        picker = await start(app, pilot)
        await pilot.press("ctrl+f")
        await pilot.pause()
        title = str(picker.query_one("#picker-title").render())
        assert "1 session" in title and "1 sessions" not in title


async def test_the_column_header_names_the_dates_the_rows_show(env: Path, tmp_path: Path) -> None:
    """At 80 columns with more sessions than fit (a scrollbar), the rows show one date, the
    modified one: the header named "created" above it as well."""
    from tests.app.test_picker import line
    from tests.waits import until

    d = tmp_path / "s"
    for i in range(1, 16):
        write(
            d / f"2020-01-{i:02d}T10-00-00-000Z_{i:03d}.jsonl",
            f"{i:03d}0000",
            "/home/u/app",
            f"2020-01-{i:02d}",
            ["Hi"],
        )
    for width, dates in ((80, 1), (120, 2)):
        app = HostApp([str(d)], only=True)
        async with app.run_test(size=(width, 12)) as pilot:
            picker = await start(app, pilot)
            y = next(i for i, r in enumerate(picker.session_list.rows) if r.kind == SESSION)
            await until(pilot, lambda p=picker, y=y: "2020-" in line(p, y), what="the session rows")
            await pilot.pause()
            assert line(picker, y).count("2020-") == dates
            header = str(picker.query_one("#picker-columns").render())
            assert ("created" in header, "modified" in header) == (dates == 2, True), header
            # the header's columns end where the rows' do
            assert len(header.rstrip()) == len(line(picker, y).rstrip()), (header, line(picker, y))
