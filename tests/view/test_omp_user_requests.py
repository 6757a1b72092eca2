"""omp's user-only filter keeps the user's requests (its tree selector's ``isUserRequestEntry``,
oh-my-pi 18.3.4's ``chat/transcript-entry.ts`` and ``chat/messages.ts``): the user's messages and
the prompts a user started with a ``/skill:`` or as a collab peer (``skill-prompt`` /
``collab-prompt`` custom messages whose ``attribution`` is ``"user"``); an agent's, or one with no
attribution, or one whose content is not text, is not one. pi sessions keep pi's rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loomtui.session.manager import SessionManager
from loomtui.view.model import TreeModel
from tests.view.helpers import assistant, user
from tests.view.test_omp_tree import kind, write


def custom(i: str, parent: str, n: int, ctype: str, attribution: Any = None, content: Any = "do it") -> dict[str, Any]:
    fields: dict[str, Any] = {"customType": ctype, "content": content, "display": True}
    if attribution is not None:
        fields["attribution"] = attribution
    return kind(i, parent, "custom_message", n, **fields)


def entries() -> list[dict[str, Any]]:
    return [
        user("u1", None, "start", 0),
        assistant("a1", "u1", "ok", 1),
        custom("s1", "a1", 2, "skill-prompt", "user"),  # a user's /skill: prompt
        assistant("a2", "s1", "ran the skill", 3),
        custom("s2", "a2", 4, "skill-prompt", "agent"),  # a skill the agent invoked
        custom("s3", "s2", 5, "skill-prompt"),  # no attribution
        custom("c1", "s3", 6, "collab-prompt", "user"),  # a collab peer's prompt
        custom("c2", "c1", 7, "collab-prompt", "user", {"x": 1}),  # content neither text nor blocks
        custom("r1", "c2", 8, "reminder", "user"),  # another kind
        kind(
            "m1",
            "r1",
            "message",
            9,
            message={
                "role": "custom",
                "customType": "skill-prompt",
                "attribution": "user",
                "content": "via a message",
                "display": True,
                "timestamp": 9,
            },
        ),
        kind(
            "m2",
            "m1",
            "message",
            10,
            message={
                "role": "custom",
                "customType": "collab-prompt",
                "attribution": "agent",
                "content": "not a user's",
                "display": True,
                "timestamp": 10,
            },
        ),
        user("u2", "m2", "last", 11),
    ]


def user_only(path: Path) -> list[str]:
    model = TreeModel(SessionManager.open(str(path)))
    model.set_filter("user-only")
    return [model.entry_at(i).id for i in range(len(model))]


def test_omp_user_only_keeps_skill_and_collab_prompts_the_user_started(tmp_path: Path) -> None:
    assert user_only(write(tmp_path, entries(), slot=True)) == ["u1", "s1", "c1", "m1", "u2"]


def test_omp_user_requests_stay_after_the_leaf_moves_and_in_the_other_filters(tmp_path: Path) -> None:
    model = TreeModel(SessionManager.open(str(write(tmp_path, entries(), slot=True))))
    model.set_leaf("s1")
    model.set_filter("user-only")
    assert [model.entry_at(i).id for i in range(len(model))] == ["u1", "s1", "c1", "m1", "u2"]
    model.set_filter("default")
    assert {"s1", "s2", "c1", "r1"} <= {model.entry_at(i).id for i in range(len(model))}


def test_pi_user_only_keeps_only_user_messages(tmp_path: Path) -> None:
    assert user_only(write(tmp_path, entries(), slot=False)) == ["u1", "u2"]
