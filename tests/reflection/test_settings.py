import pytest

from sedimem.errors import ValidationError
from sedimem.reflection import ReflectionSettings


def test_defaults_are_documented_values() -> None:
    s = ReflectionSettings()
    assert (s.min_support, s.min_confidence, s.min_lift) == (5, 0.95, 1.2)
    assert (s.anomaly_sigma, s.recent_days, s.min_baseline) == (3.0, 7.0, 10)
    assert (s.max_episodes, s.page_size) == (100_000, 1000)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("min_support", 1),
        ("min_confidence", 1.5),
        ("min_lift", 0.5),
        ("max_sequence_length", 0),
        ("anomaly_sigma", 0.0),
        ("anomaly_sigma", -2.0),
        ("recent_days", 0),
        ("min_baseline", 2),
        ("interval_z", 0),
        ("max_findings", 0),
        ("max_evidence", 0),
        ("max_insights", 0),
        ("max_task_types", 0),
        ("max_episodes", 0),
        ("page_size", 1001),
        ("min_term_length", 0),
    ],
)
def test_out_of_range_values_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValidationError) as caught:
        ReflectionSettings(**{field: value})  # type: ignore[arg-type]
    assert caught.value.field == field
    assert caught.value.allowed


def test_unknown_settings_are_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        ReflectionSettings(sigma=3)  # type: ignore[call-arg]
    assert caught.value.field == "sigma"
