"""Background agents: signals, the running fold and the cursor (the reference's
background_agents_test and agent_signals_cursor tables)."""

import json
import os

import pytest

import cite_fixtures as fx
from conftest import REPO
from termsprawl_context import jsonl
from termsprawl_context.store import background as bg
from termsprawl_context.store.background import ENDED, LAUNCHED, AgentSignalCursor, SignalsUnknown


def write(tmp_path, lines, name="r.jsonl"):
    return fx.write(tmp_path / name, lines)


def running_of(tmp_path, lines):
    return bg.running_background_agents(write(tmp_path, lines))


def user_text(u, text):
    return fx.user_msg(u, text)


NOTE = "<task-notification>\n<task-id>bg1</task-id>\n<status>%s</status>\n</task-notification>"


# --- background_agents_test.go (the companion notes' table) ----------------------------------
@pytest.mark.parametrize(
    "extra, expected",
    [
        ([], {"bg1"}),
        ([fx.notification("bg1", "completed")], set()),
        ([fx.notification("bg1", "failed")], set()),
        ([fx.notification("bg1", "killed")], set()),
        ([fx.notification("bg1", "stopped")], set()),
        ([fx.notification("bg1", "running")], {"bg1"}),
        ([fx.notification("bg9", "completed")], {"bg1"}),
        ([user_text("u9", NOTE % "completed")], set()),
        (
            [
                fx.line(
                    {"type": "user", "uuid": "u9", "message": {"content": [{"type": "text", "text": NOTE % "failed"}]}}
                )
            ],
            set(),
        ),
        # Look-alikes that are not the harness's notice: a tool result, assistant text, a prompt-mode queued command.
        ([fx.tool_answer("u9", None, "toolu_x", NOTE % "completed")], {"bg1"}),
        ([fx.assistant_text("u9", None, NOTE % "completed")], {"bg1"}),
        ([fx.queued_command_msg("u9", None, NOTE % "completed")], {"bg1"}),
    ],
)
def test_running_after_launch(tmp_path, extra, expected):
    assert running_of(tmp_path, fx.launch(1, "toolu_1", "bg1") + extra) == expected


def test_notification_before_launch_does_not_cancel_it(tmp_path):
    assert running_of(tmp_path, [fx.notification("bg1", "completed")] + fx.launch(1, "toolu_1", "bg1")) == {"bg1"}


def test_two_agents_one_done(tmp_path):
    lines = fx.launch(1, "toolu_1", "bg1") + fx.launch(2, "toolu_2", "bg2") + [fx.notification("bg1", "completed")]
    assert running_of(tmp_path, lines) == {"bg2"}


def test_foreground_bash_receipt_and_errors_are_not_launches(tmp_path):
    assert (
        running_of(
            tmp_path,
            [
                fx.named_call("a1", None, "toolu_1", "Agent", {"prompt": "go"}),
                fx.tool_answer("r1", "a1", "toolu_1", "Async agent launched successfully.\n" "agentId: bg1"),
            ],
        )
        == set()
    )
    assert (
        running_of(
            tmp_path,
            [
                fx.named_call("a1", None, "toolu_1", "Bash", fx.BG_INPUT),
                fx.tool_answer("r1", "a1", "toolu_1", "launched\nagentId: bg1"),
            ],
        )
        == set()
    )
    assert (
        running_of(
            tmp_path,
            [
                fx.named_call("a1", None, "toolu_1", "Agent", fx.BG_INPUT),
                fx.tool_answer("r1", "a1", "toolu_1", "launched agentId: bg1", is_error=True),
            ],
        )
        == set()
    )
    assert running_of(
        tmp_path,
        [
            fx.named_call("a1", None, "toolu_1", "Task", fx.BG_INPUT),
            fx.tool_answer("r1", "a1", "toolu_1", "launched agentId: bg1"),
        ],
    ) == {"bg1"}


@pytest.mark.parametrize("flag, launches", [(True, 1), ("true", 1), (False, 0), ("false", 0), (None, 0)])
def test_run_in_background_spellings(tmp_path, flag, launches):
    call_input = {"prompt": "go"} if flag is None else {"prompt": "go", "run_in_background": flag}
    path = write(
        tmp_path,
        [
            fx.named_call("a1", None, "toolu_1", "Agent", call_input),
            fx.tool_answer("r1", "a1", "toolu_1", "Async agent launched successfully.\nagentId: bg1"),
        ],
    )
    assert len(bg.background_agent_signals(path)) == launches


def test_signals_are_ordered_keyed_and_stable(tmp_path):
    path = write(
        tmp_path, fx.launch(1, "toolu_1", "bg1") + [fx.notification("bg1", "failed")] + fx.launch(2, "toolu_2", "bg2")
    )
    signals = bg.background_agent_signals(path)
    assert signals == [
        bg.AgentSignal(LAUNCHED, "bg1", "", "r-1:bg1"),
        bg.AgentSignal(ENDED, "bg1", "failed", "n-bg1failed:bg1"),
        bg.AgentSignal(LAUNCHED, "bg2", "", "r-2:bg2"),
    ]
    assert bg.background_agent_signals(path) == signals


def test_a_notification_without_uuid_is_keyed_by_its_hash(tmp_path):
    path = write(
        tmp_path,
        fx.launch(1, "toolu_1", "bg1") + [json.dumps({"type": "user", "message": {"content": NOTE % "completed"}})],
    )
    key = bg.background_agent_signals(path)[-1].key
    assert key.endswith(":bg1") and key != ":bg1" and len(key) == 16 + len(":bg1")


def test_missing_torn_and_compaction(tmp_path):
    with pytest.raises(SignalsUnknown):
        bg.running_background_agents(str(tmp_path / "absent.jsonl"))
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(fx.launch(1, "toolu_1", "bg1")) + '\n{"type":"user","uu')
    with pytest.raises(SignalsUnknown):
        bg.background_agent_signals(str(torn))
    compacted = fx.launch(1, "toolu_1", "bg1") + [
        fx.line(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": "b1",
                "parentUuid": None,
                "logicalParentUuid": "r-1",
            }
        ),
        fx.user_msg("c1", "This session is being continued from a previous conversation", isCompactSummary=True),
    ]
    assert running_of(tmp_path, compacted) == {"bg1"}


def test_four_agents_mixed_ends(tmp_path):
    lines = []
    for n in range(1, 5):
        lines += fx.launch(n, "toolu_%d" % n, "bg%d" % n)
    lines += [fx.notification("bg1", "completed"), fx.notification("bg3", "failed"), fx.notification("bg4", "killed")]
    assert running_of(tmp_path, lines) == {"bg2"}


def test_a_new_file_after_resume_knows_nothing(tmp_path):
    write(tmp_path, fx.launch(1, "toolu_1", "bg1"), "old.jsonl")
    assert running_of(tmp_path, [fx.user_msg("u1", "resumed")]) == set()


def test_the_real_shape(tmp_path):
    receipt = (
        "Async agent launched successfully.\nagentId: %s (internal ID - do not mention to user. Use SendMessage "
        "with to: '%s' to continue this agent.)"
    )
    notice = "\n".join(
        [
            "<task-notification>",
            "<task-id>a31f90c8d9db4dd8d</task-id>",
            "<tool-use-id>toolu_A</tool-use-id>",
            "<output-file>/tmp/a31f90c8d9db4dd8d.output</output-file>",
            "<status>completed</status>",
            '<summary>Agent "first" finished</summary>',
            "<result>done</result>",
            "</task-notification>",
        ]
    )
    lines = [
        fx.line(
            {
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "sessionId": "s1",
                "message": {"role": "user", "content": "research both"},
            }
        ),
        fx.line(
            {
                "type": "assistant",
                "uuid": "a1",
                "parentUuid": "u1",
                "sessionId": "s1",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_A",
                            "name": "Agent",
                            "input": {"description": "first", "prompt": "x", "run_in_background": True},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_B",
                            "name": "Agent",
                            "input": {"description": "second", "prompt": "y", "run_in_background": True},
                        },
                    ]
                },
            }
        ),
        fx.line(
            {
                "type": "user",
                "uuid": "r1",
                "parentUuid": "a1",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_A",
                            "content": [{"type": "text", "text": receipt % ("a31f90c8d9db4dd8d", "a31f90c8d9db4dd8d")}],
                        }
                    ]
                },
            }
        ),
        fx.line(
            {
                "type": "user",
                "uuid": "r2",
                "parentUuid": "r1",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_B",
                            "content": [{"type": "text", "text": receipt % ("b77e0000aaaa1111", "b77e0000aaaa1111")}],
                        }
                    ]
                },
            }
        ),
        fx.line(
            {
                "type": "attachment",
                "uuid": "n1",
                "parentUuid": "r2",
                "attachment": {"type": "queued_command", "commandMode": "task-notification", "prompt": notice},
            }
        ),
    ]
    assert running_of(tmp_path, lines) == {"b77e0000aaaa1111"}


# --- the cursor (agent_signals_cursor tests) --------------------------------------------------
SIGNAL_LINES = (
    fx.launch(1, "toolu_1", "bg1")
    + [fx.user_msg("u1", "hello")]
    + fx.launch(2, "toolu_2", "bg2")
    + [fx.notification("bg1", "completed"), fx.notification("bg2", "failed")]
)


def test_since_equals_the_whole_read_at_every_split(tmp_path):
    data = "".join(line + "\n" for line in SIGNAL_LINES).encode()
    whole_path = tmp_path / "whole.jsonl"
    whole_path.write_bytes(data)
    whole = bg.background_agent_signals(str(whole_path))
    assert len(whole) == 4
    path = str(tmp_path / "grow.jsonl")
    cuts = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    for cut in [0] + cuts:
        with open(path, "wb") as f:
            f.write(data[:cut])
        first, cur = bg.background_agent_signals_since(path, None)
        with open(path, "ab") as f:
            f.write(data[cut:])
        second, cur = bg.background_agent_signals_since(path, cur)
        assert first + second == whole, cut
        assert bg.background_agent_signals_since(path, cur) == ([], cur)
        assert cur.offset == len(data) and cur.background == ()


def test_refuses_a_torn_line_and_stays_put(tmp_path):
    path = write(tmp_path, fx.launch(1, "toolu_1", "bg1"))
    _, cur = bg.background_agent_signals_since(path)
    assert cur.offset > 0 and cur.check
    with open(path, "a") as f:
        f.write("{not json")
    with pytest.raises(SignalsUnknown) as caught:
        bg.background_agent_signals_since(path, cur)
    assert caught.value.cursor == cur


def test_a_final_record_being_written_is_unknown(tmp_path):
    path = write(tmp_path, fx.launch(1, "toolu_1", "bg1"))
    _, cur = bg.background_agent_signals_since(path)
    with open(path, "w") as f:
        f.write("".join(ln + "\n" for ln in fx.launch(1, "toolu_1", "bg1")) + '{"type":"user","uu')
    with pytest.raises(SignalsUnknown):
        bg.background_agent_signals_since(path, cur)


def test_a_whole_record_without_newline_is_read(tmp_path):
    path = write(tmp_path, fx.launch(1, "toolu_1", "bg1"))
    _, cur = bg.background_agent_signals_since(path)
    with open(path, "a") as f:
        f.write(fx.notification("bg1", "completed"))
    signals, nxt = bg.background_agent_signals_since(path, cur)
    assert [s.kind for s in signals] == [ENDED] and nxt.offset == os.path.getsize(path)


def test_starts_over_on_another_or_shorter_record(tmp_path):
    a = write(tmp_path, fx.launch(1, "toolu_1", "bg1") + fx.launch(2, "toolu_2", "bg2"), "a.jsonl")
    b = write(tmp_path, fx.launch(3, "toolu_3", "bg3"), "b.jsonl")
    _, cur = bg.background_agent_signals_since(a)
    assert [s.agent_id for s in bg.background_agent_signals_since(b, cur)[0]] == ["bg3"]
    write(tmp_path, fx.launch(4, "toolu_4", "bg4"), "a.jsonl")
    assert [s.agent_id for s in bg.background_agent_signals_since(a, cur)[0]] == ["bg4"]


def test_carries_only_calls_still_waiting(tmp_path):
    lines = []
    for i in range(200):
        lines += fx.launch(i, "toolu_" + "y" * (i + 1), "bg%d" % i)
    lines.append(fx.named_call("w", None, "toolu_wait", "Agent", fx.BG_INPUT))
    _, cur = bg.background_agent_signals_since(write(tmp_path, lines))
    assert cur.background == ("toolu_wait",)


def test_drops_a_call_answered_without_a_receipt(tmp_path):
    path = write(
        tmp_path,
        [
            fx.named_call("e", None, "toolu_e", "Agent", fx.BG_INPUT),
            fx.tool_answer("r", "e", "toolu_e", "it failed", is_error=True),
            fx.named_call("w", "r", "toolu_w", "Agent", fx.BG_INPUT),
        ],
    )
    signals, cur = bg.background_agent_signals_since(path)
    assert signals == [] and cur.background == ("toolu_w",)


def test_a_pending_call_is_carried_to_its_receipt(tmp_path):
    path = write(tmp_path, [fx.named_call("a", None, "toolu_p", "Agent", fx.BG_INPUT)])
    _, cur = bg.background_agent_signals_since(path)
    with open(path, "a") as f:
        # A receipt whose line names none of the keywords but the awaited id... and one that does.
        f.write(fx.tool_answer("r", "a", "toolu_p", "Async agent launched successfully.\nagentId: bgp") + "\n")
    signals, cur = bg.background_agent_signals_since(path, cur)
    assert [(s.kind, s.agent_id) for s in signals] == [(LAUNCHED, "bgp")] and cur.background == ()


def test_starts_over_when_rewritten(tmp_path):
    lines = fx.launch(1, "toolu_1", "bg1") + fx.launch(2, "toolu_2", "bg2")
    path = write(tmp_path, lines)
    _, cur = bg.background_agent_signals_since(path)
    rewritten = fx.launch(1, "toolu_1", "bg1") + fx.launch(2, "toolu_2", "bgX")
    assert len("\n".join(rewritten)) == len("\n".join(lines))
    write(tmp_path, rewritten + [fx.notification("bgX", "completed")])
    signals, _ = bg.background_agent_signals_since(path, cur)
    assert len(signals) == 3
    write(tmp_path, fx.launch(7, "toolu_7", "bg7") + fx.launch(8, "toolu_8", "bg8") + fx.launch(9, "toolu_9", "bg9"))
    signals, _ = bg.background_agent_signals_since(path, cur)
    assert len(signals) == 3 and signals[0].agent_id == "bg7"
    unchecked = AgentSignalCursor(path, os.path.getsize(path), "", ())
    assert len(bg.background_agent_signals_since(path, unchecked)[0]) == 3


def test_notification_before_launch_in_pieces(tmp_path):
    lines = [fx.notification("bg1", "completed")] + fx.launch(1, "toolu_1", "bg1")
    whole = bg.background_agent_signals(write(tmp_path, lines, "whole.jsonl"))
    path = write(tmp_path, lines[:1])
    first, cur = bg.background_agent_signals_since(path)
    write(tmp_path, lines)
    second, _ = bg.background_agent_signals_since(path, cur)
    assert first + second == whole


def test_the_fingerprint_is_head_then_tail(tmp_path):
    import hashlib

    path = tmp_path / "fp.jsonl"
    data = b"".join((fx.user_msg("u%d" % i, "x" * 50) + "\n").encode() for i in range(100))
    path.write_bytes(data)
    _, cur = bg.background_agent_signals_since(str(path))
    assert cur.check == hashlib.sha256(data[:256] + data[-4096:]).hexdigest()
    small = tmp_path / "small.jsonl"
    small.write_bytes(data[: 100 + data[100:].index(b"\n") + 1])
    _, cur = bg.background_agent_signals_since(str(small))
    body = small.read_bytes()
    assert cur.check == hashlib.sha256(body + body).hexdigest()


def test_cursor_json_round_trip():
    cur = AgentSignalCursor("/p.jsonl", 10, "ab", ("t2", "t1"))
    assert AgentSignalCursor.from_json(json.loads(json.dumps(cur.to_json()))) == AgentSignalCursor(
        "/p.jsonl", 10, "ab", ("t1", "t2")
    )
    assert AgentSignalCursor.from_json({"path": 1}) == AgentSignalCursor("", 0, "", ())
    assert bg.start_cursor("/x").to_json() == {"path": "/x", "offset": 0}


def test_the_second_call_reads_only_what_was_appended(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from benchmarks.bench_cite import CountingFile  # the wrapper the benchmark counts with

    lines = []
    for i in range(300):
        lines += fx.launch(i, "toolu_%d" % i, "bg%d" % i)
        lines.append(fx.user_msg("p%d" % i, "padding " * 200))
    path = write(tmp_path, lines)
    size = os.path.getsize(path)
    counter = [0]

    def opener(p):
        return CountingFile(jsonl.open_regular(p), counter)

    _, cur = bg.background_agent_signals_since(path, None, opener)
    assert counter[0] == size  # the first call reads it all, once
    appended = (fx.notification("bg5", "completed") + "\n").encode()
    appended += (fx.user_msg("late", "y" * (1024 - len(appended) - 80)) + "\n").encode()
    with open(path, "ab") as f:
        f.write(appended)
    counter[0] = 0
    signals, nxt = bg.background_agent_signals_since(path, cur, opener)
    assert [s.agent_id for s in signals] == ["bg5"]
    # The appended bytes, plus the fingerprint's window behind the old offset: nothing more.
    assert counter[0] == len(appended) + bg.FINGERPRINT_HEAD + bg.FINGERPRINT_TAIL
    assert size > 100 * counter[0]
    assert nxt.offset == size + len(appended)
    counter[0] = 0
    assert bg.background_agent_signals_since(path, nxt, opener)[0] == []
    assert counter[0] == bg.FINGERPRINT_HEAD + bg.FINGERPRINT_TAIL
