"""The wire forms of values: RFC 3339 times, JSON literals in query strings."""

from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated

import pytest
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from sedimem.api.values import AS_BOOLEAN, AS_INTEGER, AS_NUMBER, RFC3339, Instant


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("2024-05-01T12:00:00Z", True),
        ("2024-05-01t12:00:00.123456+02:00", True),
        ("2024-05-01T12:00:00", False),  # no offset
        ("2024-05-01 12:00:00Z", False),  # a space for T
        ("2024-05-01", False),
        ("-1", False),
        ("2024-05-01T12:00:00Z\n", False),
        ("\uff12\uff10\uff12\uff14-05-01T12:00:00Z", False),  # fullwidth digits
    ],
)
def test_rfc3339_is_the_only_time_form(text: str, ok: bool) -> None:
    assert (RFC3339.fullmatch(text) is not None) is ok


def test_instants_are_utc_and_python_datetimes_pass() -> None:
    adapter = TypeAdapter(Instant)
    assert adapter.validate_python("2024-05-01T14:00:00+02:00") == datetime(
        2024, 5, 1, 12, tzinfo=UTC
    )
    local = datetime(2024, 5, 1, 14, tzinfo=timezone(timedelta(hours=2)))
    assert adapter.validate_python(local).tzinfo == UTC
    with pytest.raises(PydanticValidationError):
        adapter.validate_python(1714564800)


def test_query_literals_read_only_their_json_form() -> None:
    integer = TypeAdapter(Annotated[int, AS_INTEGER])
    number = TypeAdapter(Annotated[float, AS_NUMBER])
    boolean = TypeAdapter(Annotated[bool, AS_BOOLEAN])
    assert (integer.validate_python("-12"), integer.validate_python(7)) == (-12, 7)
    assert number.validate_python("2.5e-1") == 0.25
    assert (boolean.validate_python("true"), boolean.validate_python("false")) == (True, False)
    for adapter, text in ((integer, "1e3"), (number, "Infinity"), (boolean, "TRUE")):
        with pytest.raises(PydanticValidationError):
            adapter.validate_python(text)
