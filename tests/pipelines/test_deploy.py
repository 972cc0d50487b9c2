"""The documented deployments (``deploy/``) are valid for the installed Dagster: every
``dagster.yaml`` against the instance schema, the Kubernetes run launcher and the Celery worker
configuration against their libraries' schemas, and the definitions load with the environment
each deployment sets. No cluster, broker or container runtime is needed (none runs here)."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
import yaml
from dagster._config import validate_config
from dagster._core.instance.config import dagster_instance_config

from pipelines.definitions import build_definitions
from tests.pipelines.conftest import ROOT

DEPLOY = ROOT / "deploy"
WORKSPACE = yaml.safe_load((ROOT / "workspace.yaml").read_text())["load_from"][0]["python_module"]


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def _instance_config(path: Path, tmp_path: Path) -> dict[str, Any]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    shutil.copy(path, home / "dagster.yaml")
    config, _cls = dagster_instance_config(str(home))
    return dict(config)


def _env(monkeypatch: pytest.MonkeyPatch, values: dict[str, str]) -> None:
    for key, value in values.items():
        monkeypatch.setenv(key, value)


def test_single_node_dagster_yaml_makes_a_working_instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(DEPLOY / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with dg.DagsterInstance.get() as instance:
        assert instance.root_directory == str(home)
        assert not instance.telemetry_enabled
        concurrency = instance.get_concurrency_config()
        assert concurrency.pool_config.default_pool_limit == 2
        assert concurrency.run_queue_config is not None
        assert concurrency.run_queue_config.max_concurrent_runs == 2
        assert instance.run_monitoring_enabled and instance.run_retries_enabled
    assert (home / "history").is_dir()  # SQLite storage under DAGSTER_HOME


def test_celery_dagster_yaml_is_a_valid_instance_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _env(monkeypatch, {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_PASSWORD": "x"})
    config = _instance_config(DEPLOY / "celery" / "dagster.yaml", tmp_path)
    assert "postgres" in config["storage"]
    assert config["telemetry"] == {"enabled": False}


def test_celery_worker_config_matches_the_executor_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    from dagster_celery.cli import get_validated_config

    _env(monkeypatch, {"LEX_CELERY_BROKER": "redis://127.0.0.1:6379/0", "LEX_CELERY_BACKEND": "redis://127.0.0.1:6379/1"})
    config = get_validated_config(str(DEPLOY / "celery" / "celery.yaml"))
    assert config["broker"] == "redis://127.0.0.1:6379/0" and config["backend"] == "redis://127.0.0.1:6379/1"
    assert config["config_source"]["worker_prefetch_multiplier"] == 1


def _compose() -> dict[str, Any]:
    return dict(_yaml(DEPLOY / "celery" / "docker-compose.yaml"))


def _lex_env(values: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in values.items() if k.startswith(("LEX_", "DAGSTER_DISABLE"))}


def test_celery_compose_environment_loads_the_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    compose = _compose()
    assert {"postgres", "redis", "webserver", "daemon", "worker"} <= set(compose["services"])
    env = _lex_env(compose["x-lex-env"])
    assert env["LEX_EXECUTOR"] == "celery" and env["LEX_EVIDENCE_DIR"].startswith("/data/")
    _env(monkeypatch, env)
    defs = build_definitions()
    dg.Definitions.validate_loadable(defs)
    config = defs.resolve_job_def("evidence").executor_def.apply_config_mapping({}).value["config"]
    assert config["broker"] == env["LEX_CELERY_BROKER"]


def _worker_args(command: list[str]) -> list[str]:
    """The worker's arguments, its config file mapped to this checkout's (they must exist to parse)."""
    assert command[:3] == ["dagster-celery", "worker", "start"]
    args = list(command[3:])
    where = args.index("-y") + 1
    assert Path(args[where]).name == "celery.yaml"
    args[where] = str(DEPLOY / "celery" / "celery.yaml")
    return args


@pytest.mark.parametrize("source", ["compose", "systemd"])
def test_celery_worker_commands_parse(source: str) -> None:
    from dagster_celery.cli import worker_start_command

    if source == "compose":
        args = _worker_args(_compose()["services"]["worker"]["command"])
    else:
        unit = (DEPLOY / "celery" / "lex-celery-worker@.service").read_text()
        (line,) = [x for x in unit.splitlines() if x.startswith("ExecStart=")]
        command = shlex.split(line.removeprefix("ExecStart="))
        args = _worker_args(["dagster-celery", *command[1:]])
    context = worker_start_command.make_context("start", list(args))
    assert context.params["app"] == "dagster_celery.app" and context.params["queue"] == ("dagster",)
    assert context.params["additional_args"] == ("--concurrency", "1")


def test_systemd_worker_finds_celery_on_its_path() -> None:
    """``dagster-celery worker start`` runs ``celery`` from PATH: the unit puts the venv's ``bin``
    (where ExecStart's ``dagster-celery`` is, and ``celery`` beside it) first on its PATH."""
    unit = (DEPLOY / "celery" / "lex-celery-worker@.service").read_text()
    (exec_line,) = [x for x in unit.splitlines() if x.startswith("ExecStart=")]
    (path_line,) = [x for x in unit.splitlines() if x.startswith("Environment=PATH=")]
    program = Path(shlex.split(exec_line.removeprefix("ExecStart="))[0])
    assert path_line.removeprefix("Environment=PATH=").split(":")[0] == str(program.parent)
    venv_bin = Path(sys.executable).parent  # the same layout here: celery beside dagster-celery
    assert (venv_bin / "dagster-celery").exists() and (venv_bin / "celery").exists()


def test_k8s_instance_matches_the_run_launcher_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dagster_k8s import K8sRunLauncher

    monkeypatch.setenv("DAGSTER_PG_PASSWORD", "x")
    config = _instance_config(DEPLOY / "k8s" / "dagster-instance.yaml", tmp_path)
    launcher = config["run_launcher"]
    assert (launcher["module"], launcher["class"]) == ("dagster_k8s", "K8sRunLauncher")
    result = validate_config(K8sRunLauncher.config_type(), launcher["config"])
    assert result.success, [e.message for e in result.errors or []]


def _values() -> dict[str, Any]:
    return dict(_yaml(DEPLOY / "k8s" / "values.yaml"))


def _configmap_env() -> dict[str, str]:
    docs = [d for d in yaml.safe_load_all((DEPLOY / "k8s" / "lex-env.yaml").read_text()) if d]
    (configmap,) = [d for d in docs if d["kind"] == "ConfigMap"]
    return {k: str(v) for k, v in configmap["data"].items()}


def test_helm_values_describe_the_lex_deployment() -> None:
    values = _values()
    (deployment,) = values["dagster-user-deployments"]["deployments"]
    args = deployment["dagsterApiGrpcArgs"]
    assert args == ["-m", WORKSPACE["module_name"], "-a", WORKSPACE["attribute"]]
    assert deployment["includeConfigInLaunchedRuns"]["enabled"] is True
    assert values["runLauncher"]["type"] == "K8sRunLauncher"
    launcher = values["runLauncher"]["config"]["k8sRunLauncher"]
    # the user code, every run pod and (through it) every step pod mount the same volumes
    assert launcher["volumes"] == deployment["volumes"]
    assert launcher["volumeMounts"] == deployment["volumeMounts"]
    assert values["postgresql"]["postgresqlHost"] and values["telemetry"]["enabled"] is False
    assert values["concurrency"]["pools"]["defaultLimit"] >= 1
    instance = _yaml(DEPLOY / "k8s" / "dagster-instance.yaml")["run_launcher"]["config"]
    assert instance["volumes"] == launcher["volumes"] and instance["volume_mounts"] == launcher["volumeMounts"]


def test_evidence_store_is_on_the_shared_read_write_many_volume() -> None:
    (pvc,) = [d for d in yaml.safe_load_all((DEPLOY / "k8s" / "evidence-volume.yaml").read_text()) if d]
    assert pvc["kind"] == "PersistentVolumeClaim" and pvc["spec"]["accessModes"] == ["ReadWriteMany"]
    (deployment,) = _values()["dagster-user-deployments"]["deployments"]
    claims = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in deployment["volumes"]
              if "persistentVolumeClaim" in v}
    mounts = {m["name"]: m["mountPath"] for m in deployment["volumeMounts"]}
    (shared,) = [name for name, claim in claims.items() if claim == pvc["metadata"]["name"]]
    env = _configmap_env()
    for variable in ("LEX_EVIDENCE_DIR", "LEX_WORKDIR"):
        assert env[variable].startswith(mounts[shared].rstrip("/") + "/"), variable


def test_k8s_environment_loads_the_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    env = _configmap_env()
    assert env["LEX_EXECUTOR"] == "k8s"
    _env(monkeypatch, env)
    defs = build_definitions()
    dg.Definitions.validate_loadable(defs)
    assert "k8s" in defs.resolve_job_def("derive_shards").executor_def.name
    running = {s.name for s in defs.sensors or [] if s.default_status == dg.DefaultSensorStatus.RUNNING}
    assert {"shards_after_ingest", "index_after_shards", "notify_on_run_failure"} <= running


def test_dockerfile_copies_what_exists_and_serves_the_workspace_module() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    for source in re.findall(r"^COPY (\S+) ", text, flags=re.M):
        for item in source.split():
            assert (ROOT / item).exists(), item
    assert f'"-m", "{WORKSPACE["module_name"]}"' in text
    lock = (ROOT / "requirements.lock").read_text()
    dagster_version = re.search(r"^dagster==(\S+)$", lock, flags=re.M)
    k8s_version = re.search(r"^dagster-k8s==(\S+)$", lock, flags=re.M)
    assert dagster_version and k8s_version
    for pinned in re.findall(r"dagster-[a-z]+(?:\[[a-z]+\])?==(\S+?)\"?(?:\s|$)", text):
        assert pinned == k8s_version.group(1)  # the libraries' version of the locked dagster
