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
    asked = _tensorview.open(torch.ones(3))
    with pytest.raises(urllib.error.HTTPError) as refused:
        get(asked, "/release", token="wrong")
    assert refused.value.code == 403
    assert get(asked, "/release") == {"released": True}
    assert get(asked, "/release") == {"released": False}
    with pytest.raises(urllib.error.HTTPError) as released:
        get(asked, "/tile")
    assert released.value.code == 404


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


def test_a_grid_of_patches_is_split_into_its_parts_and_reduced_to_each_token_s_norm() -> None:
    tokens = torch.arange(2 * 6 * 5, dtype=torch.float32).reshape(2, 6, 5)
    opened = _tensorview.open(tokens, "[b (gh gw) D]", sizes={"gh": 2})
    answer = get(opened, "/summary")
    assert answer["axes"] == ["b", "(gh gw)", "D"]
    assert answer["groups"] == {"1": [["gh", 2], ["gw", 3]]}
    grid = get(opened, "/tile", split="1:2,3", rows=1, cols=2, reduce="3:norm", at="1")
    assert (grid["rows"], grid["cols"], grid["reduced"]) == (2, 3, "norm")
    norms = tokens[1].double().norm(dim=-1).reshape(2, 3)
    assert torch.allclose(torch.tensor(grid["mean"], dtype=torch.float64), norms)
    assert "bad_rows" not in grid
    coarse = get(opened, "/tile", split="1:2,3", rows=1, cols=2, reduce="3:norm", col_step=2)
    assert coarse["max"][0] == pytest.approx(
        [float(tokens[0, 1].norm()), float(tokens[0, 2].norm())]
    )
    with pytest.raises(urllib.error.HTTPError) as bad:
        get(opened, "/tile", split="1:4,2")
    assert bad.value.code == 400
    # Several reductions, each over its axis: the mean over b of each token's largest |x|.
    both = get(opened, "/tile", rows=1, cols=2, reduce="0:mean;3:absmax", split="1:2,3")
    expected = tokens.double().abs().amax(-1).mean(0).reshape(2, 3)
    assert torch.allclose(torch.tensor(both["mean"], dtype=torch.float64), expected)
    assert both["reduced"] == "mean,absmax"


def test_group_parts_and_sizes_come_from_the_written_type() -> None:
    assert _tensorview.split_axes("b (h w) (p1 p2 c)") == ["b", "(h w)", "(p1 p2 c)"]
    assert _tensorview.group_parts("(h w)") == ["h", "w"]
    assert _tensorview.group_parts("16gh") == ["gh", "16"]
    assert _tensorview.group_parts("D") is None
    patches = torch.zeros(1, 12, 48)
    answer = get(
        _tensorview.open(patches, "[b (h w) (p1 p2 c)]", sizes={"w": 4, "p1": 4, "p2": 4}),
        "/summary",
    )
    assert answer["groups"] == {"1": [["h", 3], ["w", 4]], "2": [["p1", 4], ["p2", 4], ["c", 3]]}
    unknown = get(_tensorview.open(patches, "[b (h w) D]"), "/summary")
    assert unknown["groups"] == {}


def test_binary_additive_and_index_values_are_checked_against_their_domains() -> None:
    binary = get(_tensorview.open(torch.tensor([0.0, 1.0, 0.5, 1.0]), "[n] Binary"), "/summary")
    assert binary["checks"][1] == {
        "check": "every value is 0 or 1",
        "ok": False,
        "count": 1,
        "first": [2],
    }
    additive = torch.tensor([0.0, -math.inf, -2.0, math.inf])
    checks = get(_tensorview.open(additive, "[n] Additive"), "/summary")["checks"]
    assert (checks[0]["count"], checks[0]["first"]) == (1, [3])  # -inf is allowed, inf isn't
    assert (checks[1]["check"], checks[1]["count"], checks[1]["first"]) == (
        "every value is 0 or -inf",
        1,
        [2],
    )
    index = torch.tensor([[0, 3, 5], [2, 7, 1]])
    opened = _tensorview.open(index, "[b n] Index[V]", sizes={"V": 6})
    answer = get(opened, "/summary")
    assert (answer["domain"], answer["domain_size"], answer["range"]) == ("Index", 6, [0.0, 5.0])
    domain = answer["checks"][1]
    assert (domain["check"], domain["count"], domain["first"]) == (
        "every value is a whole number in [0, 6)",
        1,
        [1, 1],
    )
    assert get(opened, "/tile")["outside"] == [[0, 0, 0], [0, 1, 0]]
    assert get(opened, "/tile", col_step=2)["outside"] == [[0, 0], [1, 0]]


def test_percentiles_come_from_a_sample_that_leaves_the_program_s_random_numbers_alone() -> None:
    small = get(_tensorview.open(torch.arange(1000.0)), "/summary")
    low, high = small["percentiles"]
    assert 4 < low < 6 and 993 < high < 995
    histogram = small["histogram"]
    assert (histogram["min"], histogram["max"]) == (low, high)
    assert histogram["below"] == histogram["above"] == 5
    assert sum(histogram["counts"]) == 990
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    large = torch.zeros(300, 300)
    large[:, :3] = 1000.0
    answer = get(_tensorview.open(large), "/summary")
    assert torch.equal(torch.rand(3), expected)
    assert answer["percentiles"] == [0.0, 1000.0]
    assert answer["stats"]["max"] == 1000.0


def test_requests_are_answered_on_threads_the_debugger_leaves_alone(monkeypatch) -> None:
    marked: list[str] = []
    mark = _tensorview._debugger_s_own

    def noting(thread):
        marked.append(thread.name)
        return mark(thread)

    monkeypatch.setattr(_tensorview, "_debugger_s_own", noting)
    get(_tensorview.open(torch.ones(2)), "/summary")
    assert "shapescript-tensorview-request" in marked


def test_an_empty_value_has_a_summary_and_tiles() -> None:
    opened = _tensorview.open(torch.zeros(0, 3))
    answer = get(opened, "/summary")
    assert (answer["shape"], answer["stats"]["count"], answer["percentiles"]) == ([0, 3], 0, None)
    assert (get(opened, "/tile")["rows"], get(opened, "/tile")["cols"]) == (0, 3)


def test_the_values_are_let_go_when_the_debugger_goes_away(monkeypatch) -> None:
    connected = [True]
    monkeypatch.setattr(_tensorview, "_debugger_connected", lambda: connected[0])
    opened = _tensorview.open(torch.ones(2))
    server = _tensorview._server
    server.check_debugger()
    assert get(opened, "/summary")["shape"] == [2]
    connected[0] = False
    server.check_debugger()
    with pytest.raises(urllib.error.HTTPError) as gone:
        get(opened, "/summary")
    assert gone.value.code == 404
    # Without a debugger, nothing is let go.
    kept = _tensorview.open(torch.ones(3))
    server.check_debugger()
    assert get(kept, "/summary")["shape"] == [3]
