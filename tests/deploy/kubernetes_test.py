#!/usr/bin/python3
"""Checks deploy/kubernetes/ without a cluster (there is none here).

- every manifest parses, and every document names its apiVersion, kind and name;
- kustomization.yaml lists every manifest;
- the generated PrometheusRule and dashboard ConfigMap are current and equal to
  alerts/ and dashboards/ once parsed back (without the static-targets group: no
  TargetMissing on Kubernetes);
- the DaemonSet keeps the read-only promise (read-only root file system and mounts,
  non-root, no capabilities), has requests and limits, runs the project's version,
  and its config is one the exporter accepts;
- it mounts the node's folders at their node paths, /home among them (m1nd names a
  brain after its first ingest root that exists, so the repos must be visible), and
  never Bidirectional (a mount made in the pod would reach the node);
- the Service and the PodMonitor select the DaemonSet's pods by the port it names;
- the PodMonitor's relabelling, applied as the Prometheus Operator and Prometheus
  apply it to two pods of one node (before and after a rollout), names the target
  by its node: instance and node are the node name, no label holds the pod's IP or
  name, and both pods give the same labels (a rollout must not page again); the
  DaemonSet never runs two pods on one node (maxSurge 0);
- the scrape configs of docs/deploy.md and README.md do the same: a kubernetes_sd
  pod-role job keeps only the exporter's pods and names them by node, a file_sd or
  static job names a target by its host, without the port.

Usage: kubernetes_test.py SOURCE_DIR EXPORTER_BINARY PROJECT_VERSION
"""
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

failures = []
# Rule groups for static and file_sd fleets, left out of the PrometheusRule.
NOT_ON_KUBERNETES = ("skeleton-coherence-static-targets",)


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
                check(doc.get("metadata", {}).get("name"),
                      f"{path.name}: a document without a name")
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
        source = yaml.safe_load(path.read_text())
        left_out = [g["name"] for g in source["groups"] if g["name"] in NOT_ON_KUBERNETES]
        source["groups"] = [g for g in source["groups"] if g["name"] not in NOT_ON_KUBERNETES]
        check(rules.get(name) == source,
              f"PrometheusRule {name} differs from {path.relative_to(source_dir)} "
              f"(without {left_out})")
        # A target leaving discovery is a node scaled down: never an alert there.
        kube_alerts = [r.get("alert") for g in rules.get(name, {}).get("groups", [])
                       for r in g["rules"]]
        check("SkeletonCoherenceExporterTargetMissing" not in kube_alerts,
              f"PrometheusRule {name} alerts on a target leaving discovery")
    dashboards = [doc for doc in documents.get("ConfigMap", [])
                  if doc["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
    check(len(dashboards) == 1, "expected one ConfigMap labelled grafana_dashboard")
    for path in sorted((source_dir / "dashboards").glob("*.json")):
        check(dashboards and dashboards[0]["data"].get(path.name) == path.read_text(),
              f"dashboard ConfigMap differs from {path.relative_to(source_dir)}")

    check_daemonset(documents, exporter, version)
    check_selectors(documents)
    check_pod_monitor_relabelling(documents)
    check(check_documented_scrape_configs(source_dir / "docs" / "deploy.md", "docs/deploy.md"),
          "docs/deploy.md: no kubernetes_sd_configs (role pod) scrape config")
    check_documented_scrape_configs(source_dir / "README.md", "README.md")

    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


def check_state_owner(init_containers):
    """The one init container gives the state folder to the pod's user, with the least
    a chown needs: root, CAP_CHOWN and CAP_FOWNER, the state volume and nothing else."""
    check([c["name"] for c in init_containers] == ["state-owner"],
          "init containers: %s, want state-owner" % [c["name"] for c in init_containers])
    for container in init_containers:
        security = container.get("securityContext", {})
        check(security.get("readOnlyRootFilesystem") is True, "state-owner: readOnlyRootFilesystem")
        check(security.get("allowPrivilegeEscalation") is False,
              "state-owner: allowPrivilegeEscalation")
        check(security.get("capabilities") == {"drop": ["ALL"], "add": ["CHOWN", "FOWNER"]},
              "state-owner: capabilities %s" % security.get("capabilities"))
        check([m["name"] for m in container.get("volumeMounts", [])] == ["state"],
              "state-owner: mounts more than the state")
        command = " ".join(container.get("command", []))
        check("chown 65534:65534 /state" in command and "chmod 0700 /state" in command,
              "state-owner: command %r" % command)


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
    check_state_owner(pod.get("initContainers", []))
    for container in pod["containers"]:
        name = container["name"]
        security = container.get("securityContext", {})
        check(security.get("readOnlyRootFilesystem") is True, f"{name}: readOnlyRootFilesystem")
        check(security.get("allowPrivilegeEscalation") is False,
              f"{name}: allowPrivilegeEscalation")
        check(security.get("capabilities", {}).get("drop") == ["ALL"],
              f"{name}: capabilities not dropped")
        check(not security.get("capabilities", {}).get("add"), f"{name}: capabilities added")
        resources = container.get("resources", {})
        for kind in ("requests", "limits"):
            check(resources.get(kind, {}).get("memory"), f"{name}: no memory {kind}")
        check(container["image"].endswith(":" + version),
              f"{name}: image {container['image']} is not version {version} (project(VERSION))")
        for mount in container.get("volumeMounts", []):
            if mount["name"] == "state":  # the exporter's own state, its one writable path
                check(mount["mountPath"] == "/var/lib/skeleton-coherence-exporter",
                      f"{name}: the state is mounted at {mount['mountPath']}")
                continue
            check(mount.get("readOnly") is True, f"{name}: mount {mount['name']} is writable")
        host_mounts = [m for m in container.get("volumeMounts", [])
                       if "hostPath" in volumes.get(m["name"], {})]
        check(host_mounts, f"{name}: mounts no m1nd folder from the node")
        for mount in host_mounts:
            check(mount["mountPath"] == volumes[mount["name"]]["hostPath"]["path"],
                  f"{name}: {mount['name']} is not mounted at its node path "
                  "(registry paths would not resolve)")
            check(mount.get("mountPropagation", "None") != "Bidirectional",
                  f"{name}: {mount['name']} has mountPropagation Bidirectional")
        check(any(mount["mountPath"] == "/home" for mount in host_mounts),
              f"{name}: the node's /home is not mounted at /home (the repos m1nd names its "
              "brains by would be hidden: identity_unknown)")
        # A pod does not see the node as m1nd does: a root it cannot find is not gone.
        check("--discovery.view=sandbox" in container.get("args", []),
              f"{name}: no --discovery.view=sandbox (a repo the pod cannot see would be "
              "taken as deleted)")
    config_maps = {doc["metadata"]["name"]: doc for doc in documents.get("ConfigMap", [])}
    for volume in volumes.values():
        if "configMap" in volume:
            config = (config_maps.get(volume["configMap"]["name"], {})
                      .get("data", {}).get("config.yml"))
            check(config, f"volume {volume['name']}: no ConfigMap with config.yml")
            if config:
                check_config_accepted(config, exporter)


def check_config_accepted(config, exporter):
    with tempfile.TemporaryDirectory() as work:
        path = pathlib.Path(work) / "config.yml"
        path.write_text(config)
        run = subprocess.run([exporter, f"--config.file={path}", "--once"],
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 0,
              f"the exporter refuses the DaemonSet's config: {run.stderr.strip()}")


def check_selectors(documents):
    daemonsets = documents.get("DaemonSet", [])
    if not daemonsets:
        return
    template = daemonsets[0]["spec"]["template"]
    labels = template["metadata"]["labels"]
    ports = {port["name"] for c in template["spec"]["containers"] for port in c.get("ports", [])}

    def selects(selector):
        return all(labels.get(k) == v for k, v in selector.items())

    check(selects(daemonsets[0]["spec"]["selector"]["matchLabels"]), "DaemonSet selector")
    for service in documents.get("Service", []):
        check(selects(service["spec"]["selector"]), "Service selects other pods")
        for port in service["spec"]["ports"]:
            check(port.get("targetPort") in ports,
                  f"Service port {port.get('targetPort')} is not a pod port")
    for monitor in documents.get("PodMonitor", []):
        check(selects(monitor["spec"]["selector"]["matchLabels"]), "PodMonitor selects other pods")
        for endpoint in monitor["spec"]["podMetricsEndpoints"]:
            check(endpoint.get("port") in ports,
                  f"PodMonitor port {endpoint.get('port')} is not a pod port")


# --- relabelling, as Prometheus applies it (enough of it for these configs) ----------

JOB_REGEX = ".*skeleton-coherence.*"  # the alert rules' and the dashboard's $job default
NODE = "node-a"
NAMESPACE = "skeleton-coherence-exporter"
APP = "skeleton-coherence-exporter"


def expand(template, match):
    """$1, ${1}, ${name} in a replacement, as Go's regexp.Expand (unknown groups: empty)."""
    def group(m):
        key = m.group(1) or m.group(2)
        try:
            return match.group(int(key) if key.isdigit() else key) or ""
        except (IndexError, re.error):
            return ""
    return re.sub(r"\$(?:\{(\w+)\}|(\w+))", group, template)


def relabel(labels, configs):
    """Prometheus' relabel_configs (snake_case keys) over `labels`; None if dropped."""
    labels = dict(labels)
    for config in configs:
        action = config.get("action", "replace").lower()
        regex = re.compile(config.get("regex", "(.*)"))
        value = config.get("separator", ";").join(
            labels.get(name, "") for name in config.get("source_labels", []))
        if action == "replace":
            match = regex.fullmatch(value)
            if match:
                target = expand(config.get("target_label", ""), match)
                result = expand(config.get("replacement", "$1"), match)
                if result:
                    labels[target] = result
                else:
                    labels.pop(target, None)
        elif action == "keep":
            if not regex.fullmatch(value):
                return None
        elif action == "drop":
            if regex.fullmatch(value):
                return None
        elif action == "labeldrop":
            labels = {k: v for k, v in labels.items() if not regex.fullmatch(k)}
        elif action == "labelkeep":
            labels = {k: v for k, v in labels.items() if regex.fullmatch(k)}
        elif action == "labelmap":
            for name, label_value in list(labels.items()):
                match = regex.fullmatch(name)
                if match:
                    labels[expand(config.get("replacement", "$1"), match)] = label_value
        else:
            failures.append(f"relabelling: action {action} is not simulated by this test")
            return None
    return labels


def target_labels(labels, job):
    """What Prometheus makes of relabelled labels: job and instance set, __* dropped."""
    if labels is None:
        return None
    labels = dict(labels)
    labels.setdefault("job", job)
    labels.setdefault("instance", labels.get("__address__", ""))
    return {k: v for k, v in labels.items() if not k.startswith("__")}


def pod_meta(pod_name, pod_ip, app=APP, port_name="metrics"):
    """kubernetes_sd pod-role labels of one container port of a pod on NODE."""
    return {
        "__address__": f"{pod_ip}:9864",
        "__meta_kubernetes_namespace": NAMESPACE,
        "__meta_kubernetes_pod_name": pod_name,
        "__meta_kubernetes_pod_ip": pod_ip,
        "__meta_kubernetes_pod_node_name": NODE,
        "__meta_kubernetes_pod_host_ip": "192.0.2.10",
        "__meta_kubernetes_pod_container_name": "exporter",
        "__meta_kubernetes_pod_container_port_name": port_name,
        "__meta_kubernetes_pod_container_port_number": "9864",
        "__meta_kubernetes_pod_label_app_kubernetes_io_name": app,
        "__meta_kubernetes_pod_labelpresent_app_kubernetes_io_name": "true",
    }


# Two pods of the DaemonSet on one node: before and after a rollout.
ROLLOUT = [pod_meta(f"{APP}-7xk2p", "10.244.1.17"), pod_meta(f"{APP}-q9w4d", "10.244.1.42")]


def check_node_named(name, targets):
    """The targets of ROLLOUT's two pods: named by the node, the same for both."""
    for labels in targets:
        if labels is None:
            failures.append(f"{name}: drops the exporter's pod")
            return
        check(labels.get("instance") == NODE,
              f"{name}: instance is {labels.get('instance')!r}, want the node name {NODE!r} "
              "(a pod IP changes at every rollout: a second page, then a false RESOLVED)")
        check(labels.get("node") == NODE, f"{name}: no node label with the node name")
        for pod in ROLLOUT:
            for key, value in labels.items():
                check(pod["__meta_kubernetes_pod_ip"] not in value
                      and pod["__meta_kubernetes_pod_name"] != value,
                      f"{name}: label {key}={value!r} names the pod, which a rollout changes")
        check(re.fullmatch(JOB_REGEX, labels.get("job", "")),
              f"{name}: job {labels.get('job')!r} does not match {JOB_REGEX}")
    check(targets[0] == targets[1],
          f"{name}: the pods before and after a rollout have different labels: {targets}")


def check_pod_monitor_relabelling(documents):
    camel = re.compile(r"(?<!^)(?=[A-Z])")
    for daemonset in documents.get("DaemonSet", []):
        rolling = daemonset["spec"].get("updateStrategy", {}).get("rollingUpdate", {})
        check(str(rolling.get("maxSurge", 0)) in ("0", "0%"),
              "DaemonSet: maxSurge must be 0 (targets are named by node: one pod per node)")
    monitors = documents.get("PodMonitor", [])
    check(monitors, "no PodMonitor")
    for monitor in monitors:
        spec = monitor["spec"]
        for endpoint in spec["podMetricsEndpoints"]:
            user = [{camel.sub("_", k).lower(): v for k, v in r.items()}
                    for r in endpoint.get("relabelings", [])]
            targets = []
            for meta in ROLLOUT:
                # What the operator puts before the PodMonitor's own relabelings.
                job_from = "__meta_kubernetes_pod_label_" + re.sub(r"[^A-Za-z0-9_]", "_",
                                                                   spec.get("jobLabel", ""))
                operator = [
                    {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"},
                    {"source_labels": ["__meta_kubernetes_pod_container_name"],
                     "target_label": "container"},
                    {"source_labels": ["__meta_kubernetes_pod_name"], "target_label": "pod"},
                    {"target_label": "job",
                     "replacement": f"podMonitor/{NAMESPACE}/{monitor['metadata']['name']}/0"},
                    {"source_labels": [job_from], "target_label": "job", "regex": "(.+)",
                     "replacement": "${1}"},
                    {"target_label": "endpoint", "replacement": endpoint.get("port", "")},
                ]
                targets.append(target_labels(relabel(meta, operator + user), ""))
            check_node_named(f"PodMonitor {monitor['metadata']['name']}", targets)


def yaml_blocks(path):
    return re.findall(r"^```ya?ml\n(.*?)^```", path.read_text(), re.M | re.S)


def check_documented_scrape_configs(path, name):
    jobs = []
    for block in yaml_blocks(path):
        if "scrape_configs:" not in block:
            continue
        try:
            document = yaml.safe_load(block)
        except yaml.YAMLError as error:
            failures.append(f"{name}: a scrape config does not parse: {error}")
            continue
        jobs += document.get("scrape_configs", []) or []
    check(jobs, f"{name}: no scrape_configs example")
    kubernetes = False
    for job in jobs:
        where = f"{name}: job {job.get('job_name')}"
        check(re.fullmatch(JOB_REGEX, job.get("job_name", "")),
              f"{where}: the name does not match {JOB_REGEX} (the rules' and dashboard's job)")
        configs = job.get("relabel_configs", [])
        if any(sd.get("role") == "pod" for sd in job.get("kubernetes_sd_configs", [])):
            kubernetes = True
            targets = [target_labels(relabel(meta, configs), job["job_name"]) for meta in ROLLOUT]
            check_node_named(where, targets)
            other = target_labels(relabel(pod_meta("coredns-5d78c9869d-x2x5z", "10.244.1.3",
                                                   app="coredns"), configs), job["job_name"])
            check(other is None, f"{where}: keeps pods that are not the exporter's")
            other = target_labels(relabel(pod_meta(f"{APP}-7xk2p", "10.244.1.17",
                                                   port_name="probe"), configs), job["job_name"])
            check(other is None, f"{where}: keeps ports other than metrics")
            continue
        groups = job.get("static_configs", [])
        if job.get("file_sd_configs"):
            groups = [{"targets": ["host-a.example.net:9864", "host-b:9864"]}]
        check(groups, f"{where}: neither kubernetes_sd (pod), static_configs nor file_sd_configs")
        for group in groups:
            for address in group.get("targets", []):
                labels = dict(group.get("labels", {}), __address__=address)
                labels = target_labels(relabel(labels, configs), job["job_name"])
                instance = labels.get("instance", "") if labels else ""
                check(instance and not re.search(r":\d+$", instance),
                      f"{where}: target {address} gets instance {instance!r}, want the host "
                      "name without the port")
                if job.get("file_sd_configs"):
                    check(instance == address.rsplit(":", 1)[0],
                          f"{where}: target {address} gets instance {instance!r}")
    return kubernetes


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
