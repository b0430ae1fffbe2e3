// Validates Kubernetes manifests against the Kubernetes API schema (kubernetes-models)
// and the Prometheus Operator CRD schemas (@kubernetes-models/prometheus-operator).
// Reads JSON on stdin: [{"file": "daemonset.yml", "document": {...}}, ...]
// (tests/deploy/kubernetes_schema_test.sh converts the YAML). These schemas check
// types, required fields, enums and formats; they do not reject unknown fields.
import { readFileSync } from "node:fs";

function modulePath(apiVersion, kind) {
  if (apiVersion.startsWith("monitoring.coreos.com/")) {
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  }
  return `kubernetes-models/${apiVersion}/${kind}`;
}

const entries = JSON.parse(readFileSync(0, "utf8"));
let failures = 0;
for (const { file, document } of entries) {
  const what = `${file}: ${document.kind} ${document.metadata?.name}`;
  let Model;
  try {
    Model = (await import(modulePath(document.apiVersion, document.kind)))[document.kind];
  } catch (error) {
    console.log(`FAIL: ${what}: no schema for ${document.apiVersion} ${document.kind}`);
    failures++;
    continue;
  }
  try {
    new Model(document).validate();
    console.log(`ok: ${what}`);
  } catch (error) {
    console.log(`FAIL: ${what}: ${error.message}`);
    failures++;
  }
}
console.log(`${entries.length - failures} valid, ${failures} invalid`);
process.exit(failures ? 1 : 0);
