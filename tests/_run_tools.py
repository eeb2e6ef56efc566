"""Functions the run tests register as tools (``--tool _run_tools:get_weather``)."""

from __future__ import annotations

CALLS: list[tuple[str, dict[str, object]]] = []


def get_weather(city: str, unit: str = "C") -> str:
    """The weather in a city right now.

    Only a test double of a weather service.
    """
    CALLS.append(("get_weather", {"city": city, "unit": unit}))
    return f"Sunny, 21 {unit} in {city}"


def broken(city: str) -> str:
    """A tool that always fails."""
    raise RuntimeError(f"the service for {city} is down")


def exits(city: str) -> str:
    """A tool that exits, as a script's ``main`` (or its argument parser) does."""
    raise SystemExit(3)
