"""Config validation: every error kind names the key and, where there are choices, lists them."""

from __future__ import annotations

import pytest

from packbench.algorithms import STRATEGIES
from packbench.experiments.config import ExperimentConfig, layers, load_config, parse_config

BASE = {
    "name": "t",
    "budgets": [100],
    "sources": [{"name": "pisinger", "n": 5}],
    "strategies": [{"name": "greedy"}],
}


def with_(**changes):
    cfg = dict(BASE)
    cfg.update(changes)
    return cfg


def error_of(data) -> str:
    with pytest.raises(ValueError) as info:
        parse_config(data)
    return str(info.value)


def test_valid_config_normalises_scalars_to_sweeps():
    cfg = parse_config(with_(seeds=3, near_dup="off", budgets=0.5,
                             strategies=[{"name": "cpsat", "time_limit": [0.1, 0.2], "workers": 1}]))
    assert cfg.seeds == [3] and cfg.near_dup == ["off"] and cfg.budgets == [0.5]
    assert cfg.strategies[0].grid() == [{"time_limit": 0.1, "workers": 1}, {"time_limit": 0.2, "workers": 1}]
    assert cfg.reference_name == ("exact" if "exact" in STRATEGIES else "exact_dp")


def test_unknown_top_level_key_lists_valid_keys():
    msg = error_of(with_(budget=[5]))
    assert "unknown key(s) 'budget'" in msg and "budgets" in msg and "strategies" in msg


def test_missing_required_key_is_named():
    data = dict(BASE)
    del data["strategies"]
    assert "strategies: missing required key" in error_of(data)


def test_budgets_needed_at_top_level_or_in_every_source():
    data = with_(sources=[{"name": "traps", "budgets": "natural"}, {"name": "pisinger"}])
    del data["budgets"]
    msg = error_of(data)
    assert "budgets: missing for sources[1]" in msg
    data["sources"][1]["budgets"] = [0.5]
    cfg = parse_config(data)
    assert cfg.sources[0].budgets == ["natural"] and cfg.sources[1].budgets == [0.5]


def test_source_overrides_are_validated():
    msg = error_of(with_(sources=[{"name": "traps", "near_dup": 2.0}]))
    assert "sources[0]" in msg and "near_dup[0]" in msg
    msg = error_of(with_(sources=[{"name": "traps", "orders": ["sideways"]}]))
    assert "unknown order 'sideways'" in msg
    msg = error_of(with_(sources=[{"name": "traps", "skip_strategies": ["bnbb"]}]))
    assert "sources[0].skip_strategies: 'bnbb' not among the config's strategies" in msg
    every = [s["name"] if isinstance(s, dict) else s for s in BASE["strategies"]]
    msg = error_of(with_(sources=[{"name": "traps", "skip_strategies": every}]))
    assert "sources[0].skip_strategies: skips every strategy of the config" in msg


def test_wrong_type_names_key_and_value():
    msg = error_of(with_(repeats="3"))
    assert "repeats" in msg and "valid integer" in msg and "'3'" in msg


def test_unknown_strategy_lists_registered_strategies():
    msg = error_of(with_(strategies=[{"name": "gredy"}]))
    assert "strategies[0]" in msg and "unknown strategy 'gredy'" in msg
    for name in STRATEGIES:
        assert name in msg


def test_unknown_source_lists_families():
    msg = error_of(with_(sources=[{"name": "pisinnger"}]))
    assert "sources[0]" in msg and "unknown family or corpus 'pisinnger'" in msg
    assert "pisinger" in msg and "retrieval" in msg and "traps" in msg


def test_unknown_order_lists_orders():
    msg = error_of(with_(orders=["middle"]))
    assert "orders[0]" in msg and "unknown order 'middle'" in msg and "lost_in_middle" in msg


def test_unknown_strategy_parameter_lists_valid_parameters():
    msg = error_of(with_(strategies=[{"name": "cpsat", "timelimit": 1.0}]))
    assert "strategies[0]" in msg and "'timelimit'" in msg and "time_limit" in msg and "workers" in msg


def test_out_of_range_parameter_names_the_bound():
    msg = error_of(with_(sources=[{"name": "pisinger", "n": [5, 0]}]))
    assert "sources[0]" in msg and "'n'" in msg and ">= 1" in msg


def test_wrong_parameter_type_is_reported_with_location():
    msg = error_of(with_(strategies=[{"name": "cpsat", "time_limit": "fast"}]))
    assert "strategies[0]" in msg and "time_limit" in msg and "'fast'" in msg


def test_source_cross_parameter_rule():
    msg = error_of(with_(sources=[{"name": "pisinger", "R": 1005}]))
    assert "'R'" in msg and "multiple of 10" in msg


def test_bad_budget_values():
    assert "budgets[1]" in error_of(with_(budgets=[10, 1.5])) and "(0, 1]" in error_of(with_(budgets=[1.5]))
    assert "budgets[0]" in error_of(with_(budgets=[-3])) and ">= 0" in error_of(with_(budgets=[-3]))
    msg = error_of(with_(budgets=["all"]))
    assert "natural" in msg and "'all'" in msg


def test_negative_seed_is_rejected_at_load_time():
    # Used to load, then turn every run into a "source unavailable" skipped row.
    msg = error_of(with_(seeds=[0, -1]))
    assert "seeds[1]" in msg and "greater than or equal to 0" in msg
    assert parse_config(with_(seeds=[0, 2**40])).seeds == [0, 2**40]


def test_bad_near_dup():
    msg = error_of(with_(near_dup=[0.8, 1.2]))
    assert "near_dup[1]" in msg and "[0, 1]" in msg and "off" in msg


def test_unknown_reference_lists_strategies():
    msg = error_of(with_(reference="optimal"))
    assert "reference" in msg and "unknown strategy 'optimal'" in msg and "exact_dp" in msg


def test_the_report_and_the_gate_validate_their_sections():
    from packbench.experiments.sections import check_sections

    # Loading a config imports neither the report nor the gate; their owners check their sections.
    with pytest.raises(ValueError, match=r"plots: unknown plot 'pie'; valid: .*ratio_vs_budget") as info:
        check_sections(parse_config(with_(plots=["pie"])))
    assert "invalid config" in str(info.value)
    with pytest.raises(ValueError, match=r"gate: unknown key 'bogus'"):
        check_sections(parse_config(with_(gate={"bogus": 1})))
    check_sections(parse_config(with_(plots=["ratio_vs_budget"], gate={"errors": 2.0})))


def test_packbench_run_refuses_an_unknown_plot_before_any_run(tmp_path, capsys):
    from packbench.experiments.cli import main

    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\nbudgets = [10]\nplots = ["pie"]\nstrategies = ["greedy"]\n'
                    '[[sources]]\nname = "traps"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "unknown plot 'pie'" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_entry_without_name_lists_choices():
    msg = error_of(with_(strategies=[{"time_limit": 1.0}]))
    assert "missing key 'name'" in msg and "greedy" in msg


def test_bad_curve():
    msg = error_of(with_(curve="gpt-9"))
    assert "curve" in msg and "gpt-9" in msg


def test_bad_experiment_name():
    assert "name" in error_of(with_(name="../escape"))


def test_registry_read_at_validation_time(tmp_path, monkeypatch):
    from tests.plugins import install_entry_points

    with pytest.raises(ValueError):
        parse_config(with_(sources=[{"name": "late_family"}]))
    # A distribution installed later registers the source; the next validation finds it.
    install_entry_points(tmp_path, monkeypatch, "packbench.sources", {"late_family": "tests.plugins:Late"})
    assert parse_config(with_(sources=[{"name": "late_family"}])).sources[0].name == "late_family"


def test_load_config_reports_bad_toml_and_path(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nbudgets = [1,\n')
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config(bad)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('name = "x"\nbudgets = [10]\nstrategies = [{name = "greedy"}]\n'
                     'sources = [{name = "traps"}]\nseeds = [1, "two"]\n')
    with pytest.raises(ValueError, match=r"wrong.toml: invalid config: seeds\[1\]"):
        load_config(wrong)


@pytest.mark.parametrize("name", ["default.toml", "smoke.toml", "budget_sweep.toml"])
def test_shipped_configs_are_valid(name):
    from packbench.experiments.provenance import REPO_ROOT

    cfg = load_config(REPO_ROOT / "configs" / name)
    assert cfg.name == name.removesuffix(".toml")


@pytest.mark.parametrize("layer", [layer for layer in layers() if layer.exercised], ids=lambda layer: layer.name)
def test_default_config_exercises_every_registered_name(layer):
    from packbench.experiments.provenance import REPO_ROOT

    # Left out by the layer: peer adapters (their extras; configs/peers.toml runs them) and components
    # without defaults (file corpora read a user's file; tests/test_corpus_files.py runs them).
    cfg = load_config(REPO_ROOT / "configs" / "default.toml")
    missing = sorted(set(layer.must_exercise()) - cfg.names(layer.config_key))
    assert not missing, "; ".join(f"add `{name}` to configs/default.toml (under `{layer.config_key}`)"
                                  for name in missing)


def test_every_layer_declares_its_entry_point_group_and_config_key():
    declared = {layer.name: (layer.group, layer.config_key) for layer in layers()}
    assert declared == {"strategy": ("packbench.strategies", "strategies"), "order": ("packbench.orders", "orders"),
                        "fill": ("packbench.fills", "fill"), "dedupe method": ("packbench.dedupe", "dedupe"),
                        "embedder": ("packbench.embedders", None),
                        "family or corpus": ("packbench.sources", "sources")}
    assert {layer.config_key for layer in layers()} - {None} <= set(ExperimentConfig.model_fields)


def test_dedupe_and_fill_take_import_paths_as_pack_does():
    cfg = parse_config(with_(dedupe="tests.plugins:KeepAll", fill="truncate"))
    assert cfg.dedupe == "tests.plugins:KeepAll" and cfg.fill == "truncate"
    assert "unknown dedupe method 'nope'" in error_of(with_(dedupe="nope"))
    assert "unknown fill 'nope'" in error_of(with_(fill="nope"))
    assert "cannot import module 'no_such_mod'" in error_of(with_(fill="no_such_mod:Fill"))
    assert parse_config(with_()).fill is None


def test_loading_a_config_imports_neither_the_report_nor_the_gate():
    import subprocess
    import sys

    from packbench.experiments.provenance import REPO_ROOT

    code = ("import sys; from packbench.experiments.config import load_config; "
            f"load_config({str(REPO_ROOT / 'configs' / 'budget_sweep.toml')!r}); "  # it names plots
            "print(sorted(m for m in sys.modules if m.startswith(('packbench.experiments.report', "
            "'packbench.experiments.gate'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
