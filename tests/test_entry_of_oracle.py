"""The lenient record reading (``entry_of``, a positional loop over the field table) against
the table read field by field, and the session title's text rule."""

from hypothesis import given, settings, strategies as st

from termsprawl_context import model as E
from termsprawl_context.transcript.content import first_content_text

from oracles import entry_of_oracle

_KEYS = [key for key, _, _ in E._DECODED] + ["content", "summary", "Type", "UUID"]
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["content", "type", "text"]), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=8), st.integers(0, 9), st.integers(-1, 99))
def test_entry_of_equals_its_field_table(record, line, offset):
    assert E.entry_of(record, line, offset) == entry_of_oracle(record, line, offset)


def test_first_content_text_is_the_title_rule():
    assert first_content_text("typed") == "typed"
    assert (
        first_content_text(
            [
                {"type": "tool_result", "text": "no"},
                {"type": "text", "text": ""},
                {"type": "text", "text": "first"},
                {"type": "text", "text": "second"},
            ]
        )
        == "first"
    )
    assert first_content_text(["bare strings do not count"]) == ""
    assert first_content_text(None) == ""
