#!/usr/bin/python3
"""Checks deploy/kubernetes/ without a cluster (there is none here).

- every manifest parses, and every document names its apiVersion, kind and name;
- kustomization.yaml lists every manifest;
- the generated PrometheusRule and dashboard ConfigMap are current and equal to
  alerts/ and dashboards/ once parsed back;
- the DaemonSet keeps the read-only promise (read-only root file system and mounts,
  non-root, no capabilities), has requests and limits, runs the project's version,
  and its config is one the exporter accepts;
- it mounts the node's folders at their node paths, /home among them (m1nd names a
  brain after its first ingest root that exists, so the repos must be visible), and
  never Bidirectional (a mount made in the pod would reach the node);
- the Service and the PodMonitor select the DaemonSet's pods by the port it names.

Usage: kubernetes_test.py SOURCE_DIR EXPORTER_BINARY PROJECT_VERSION
"""
import pathlib
import subprocess
import sys
import tempfile

import yaml

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def load_all(path):
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def main(source_dir, exporter, version):
    k8s = source_dir / "deploy" / "kubernetes"
    manifests = sorted(list(k8s.glob("*.yml")) + list(k8s.glob("*.yaml")))
    documents = {}
    for path in manifests:
        try:
            docs = load_all(path)
        except yaml.YAMLError as error:
            failures.append(f"{path.name}: does not parse: {error}")
            continue
        check(docs, f"{path.name}: no document")
        for doc in docs:
            check(isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind"),
                  f"{path.name}: a document without apiVersion or kind")
            if doc.get("kind") != "Kustomization":
                check(doc.get("metadata", {}).get("name"), f"{path.name}: a document without a name")
                documents.setdefault(doc["kind"], []).append(doc)
    print(f"parsed {len(manifests)} files: " +
          ", ".join(f"{kind} x{len(docs)}" for kind, docs in sorted(documents.items())))

    kustomization = yaml.safe_load((k8s / "kustomization.yaml").read_text())
    listed = set(kustomization.get("resources", []))
    for path in manifests:
        if path.name != "kustomization.yaml":
            check(path.name in listed, f"kustomization.yaml does not list {path.name}")

    generated = subprocess.run([sys.executable, str(k8s / "generate.py"), "--check"],
                               capture_output=True, text=True)
    check(generated.returncode == 0, "generated manifests: " + generated.stderr.strip())
    rule_files = sorted((source_dir / "alerts").glob("*.rules.yml"))
    rules = {doc["metadata"]["name"]: doc["spec"] for doc in documents.get("PrometheusRule", [])}
    for path in rule_files:
        name = path.name[: -len(".rules.yml")]
        check(rules.get(name) == yaml.safe_load(path.read_text()),
              f"PrometheusRule {name} differs from {path.relative_to(source_dir)}")
    dashboards = [doc for doc in documents.get("ConfigMap", [])
                  if doc["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
    check(len(dashboards) == 1, "expected one ConfigMap labelled grafana_dashboard")
    for path in sorted((source_dir / "dashboards").glob("*.json")):
        check(dashboards and dashboards[0]["data"].get(path.name) == path.read_text(),
              f"dashboard ConfigMap differs from {path.relative_to(source_dir)}")

    check_daemonset(documents, exporter, version)
    check_selectors(documents)

    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


def check_daemonset(documents, exporter, version):
    daemonsets = documents.get("DaemonSet", [])
    check(len(daemonsets) == 1, "expected one DaemonSet")
    if not daemonsets:
        return
    pod = daemonsets[0]["spec"]["template"]["spec"]
    check(pod.get("securityContext", {}).get("runAsNonRoot") is True, "pod: runAsNonRoot")
    check(pod.get("automountServiceAccountToken") is False, "pod: service account token mounted")
    check(not pod.get("hostNetwork") and not pod.get("hostPID"), "pod: host network or PID")
    volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
    for container in pod["containers"]:
        name = container["name"]
        security = container.get("securityContext", {})
        check(security.get("readOnlyRootFilesystem") is True, f"{name}: readOnlyRootFilesystem")
        check(security.get("allowPrivilegeEscalation") is False, f"{name}: allowPrivilegeEscalation")
        check(security.get("capabilities", {}).get("drop") == ["ALL"], f"{name}: capabilities not dropped")
        check(not security.get("capabilities", {}).get("add"), f"{name}: capabilities added")
        resources = container.get("resources", {})
        for kind in ("requests", "limits"):
            check(resources.get(kind, {}).get("memory"), f"{name}: no memory {kind}")
        check(container["image"].endswith(":" + version),
              f"{name}: image {container['image']} is not version {version} (project(VERSION))")
        for mount in container.get("volumeMounts", []):
            check(mount.get("readOnly") is True, f"{name}: mount {mount['name']} is writable")
        host_mounts = [m for m in container.get("volumeMounts", []) if "hostPath" in volumes.get(m["name"], {})]
        check(host_mounts, f"{name}: mounts no m1nd folder from the node")
        for mount in host_mounts:
            check(mount["mountPath"] == volumes[mount["name"]]["hostPath"]["path"],
                  f"{name}: {mount['name']} is not mounted at its node path (registry paths would not resolve)")
            check(mount.get("mountPropagation", "None") != "Bidirectional",
                  f"{name}: {mount['name']} has mountPropagation Bidirectional")
        check(any(mount["mountPath"] == "/home" for mount in host_mounts),
              f"{name}: the node's /home is not mounted at /home (the repos m1nd names its "
              "brains by would be hidden: identity_unknown)")
    config_maps = {doc["metadata"]["name"]: doc for doc in documents.get("ConfigMap", [])}
    for volume in volumes.values():
        if "configMap" in volume:
            config = config_maps.get(volume["configMap"]["name"], {}).get("data", {}).get("config.yml")
            check(config, f"volume {volume['name']}: no ConfigMap with config.yml")
            if config:
                check_config_accepted(config, exporter)


def check_config_accepted(config, exporter):
    with tempfile.TemporaryDirectory() as work:
        path = pathlib.Path(work) / "config.yml"
        path.write_text(config)
        run = subprocess.run([exporter, f"--config.file={path}", "--once"],
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 0, f"the exporter refuses the DaemonSet's config: {run.stderr.strip()}")


def check_selectors(documents):
    daemonsets = documents.get("DaemonSet", [])
    if not daemonsets:
        return
    template = daemonsets[0]["spec"]["template"]
    labels = template["metadata"]["labels"]
    ports = {port["name"] for c in template["spec"]["containers"] for port in c.get("ports", [])}
    selects = lambda selector: all(labels.get(k) == v for k, v in selector.items())
    check(selects(daemonsets[0]["spec"]["selector"]["matchLabels"]), "DaemonSet selector")
    for service in documents.get("Service", []):
        check(selects(service["spec"]["selector"]), "Service selects other pods")
        for port in service["spec"]["ports"]:
            check(port.get("targetPort") in ports, f"Service port {port.get('targetPort')} is not a pod port")
    for monitor in documents.get("PodMonitor", []):
        check(selects(monitor["spec"]["selector"]["matchLabels"]), "PodMonitor selects other pods")
        for endpoint in monitor["spec"]["podMetricsEndpoints"]:
            check(endpoint.get("port") in ports, f"PodMonitor port {endpoint.get('port')} is not a pod port")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
