"""The Tensor view's server, driven over HTTP with its token."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request

import pytest

torch = pytest.importorskip("torch")

from shapescript import _tensorview  # noqa: E402


def get(opened: dict, path: str, token: str | None = None, **query) -> dict:
    parts = [f"id={opened['id']}"] + [f"{key}={value}" for key, value in query.items()]
    request = urllib.request.Request(
        f"{opened['url']}{path}?{'&'.join(parts)}",
        headers={"X-ShapeScript-Token": opened["token"] if token is None else token},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_the_server_listens_on_loopback_and_refuses_a_wrong_token() -> None:
    opened = _tensorview.open(torch.zeros(2, 2))
    assert opened["url"].startswith("http://127.0.0.1:")
    with pytest.raises(urllib.error.HTTPError) as refused:
        get(opened, "/summary", token="not-the-token")
    assert refused.value.code == 403
    with pytest.raises(urllib.error.HTTPError) as no_token:
        get(opened, "/summary", token="")
    assert no_token.value.code == 403
    assert get(opened, "/summary")["shape"] == [2, 2]


def test_the_summary_flags_a_planted_nan_and_a_prob_row_that_does_not_sum_to_one() -> None:
    att = torch.full((2, 3, 4), 0.25)
    att[1, 2, 3] = math.nan
    att[0, 1] = torch.tensor([0.5, 0.5, 0.5, 0.0])
    opened = _tensorview.open(att, "[b n m] Prob over m")
    answer = get(opened, "/summary")
    assert answer["axes"] == ["b", "n", "m"]
    assert answer["dtype"] == "float32"
    assert answer["stats"]["nan"] == 1
    checks = {check["check"]: check for check in answer["checks"]}
    finite = checks["no NaN or ±∞"]
    assert (finite["ok"], finite["count"], finite["first"]) == (False, 1, [1, 2, 3])
    assert checks["every value is in Prob's range"]["ok"]
    sums = checks["each row sums to 1 over m"]
    assert (sums["ok"], sums["count"], sums["first"]) == (False, 2, [0, 1])
    assert sums["worst"] == [1, 2]


def test_a_good_prob_passes_its_checks() -> None:
    probs = torch.softmax(torch.randn(3, 5), dim=-1)
    answer = get(_tensorview.open(probs, "[n m] Prob over m"), "/summary")
    assert all(check["ok"] for check in answer["checks"])


def test_tiles_are_at_most_256_cells_and_cells_cover_powers_of_two() -> None:
    values = torch.arange(300 * 300, dtype=torch.float32).reshape(300, 300)
    values[299, 299] = math.inf
    opened = _tensorview.open(values, "[n m]")
    whole = get(opened, "/tile")
    assert (whole["rows"], whole["cols"]) == (256, 256)
    assert whole["mean"][1][2] == 302.0
    zoomed = get(opened, "/tile", row_step=2, col_step=2)
    assert (zoomed["rows"], zoomed["cols"]) == (150, 150)
    assert zoomed["min"][0][0] == 0.0 and zoomed["max"][0][0] == 301.0
    assert zoomed["mean"][0][0] == (0 + 1 + 300 + 301) / 4
    assert zoomed["inf"][149][149] == 1
    rest = get(opened, "/tile", row=256, col=256)
    assert (rest["rows"], rest["cols"]) == (44, 44)
    with pytest.raises(urllib.error.HTTPError) as bad:
        get(opened, "/tile", row_step=3)
    assert bad.value.code == 400


def test_a_released_value_is_gone() -> None:
    opened = _tensorview.open(torch.ones(3))
    _tensorview.release(opened["id"])
    with pytest.raises(urllib.error.HTTPError) as gone:
        get(opened, "/summary")
    assert gone.value.code == 404


def test_tiles_of_a_prob_over_the_columns_count_the_rows_that_do_not_sum_to_one() -> None:
    probs = torch.full((2, 6, 4), 0.25)
    probs[0, 3] = torch.tensor([0.5, 0.5, 0.5, 0.0])
    probs[0, 2, 0] = math.nan
    opened = _tensorview.open(probs, "[b n m] Prob over m")
    whole = get(opened, "/tile")
    assert whole["bad_rows"] == [0, 0, 1, 1, 0, 0]
    coarse = get(opened, "/tile", row_step=2)
    assert coarse["bad_rows"] == [0, 2, 0]
    assert get(opened, "/tile", at="1")["bad_rows"] == [0] * 6
    across = get(opened, "/tile", rows=2, cols=1)
    assert "bad_rows" not in across
    assert "bad_rows" not in get(_tensorview.open(probs, "[b n m]"), "/tile")
