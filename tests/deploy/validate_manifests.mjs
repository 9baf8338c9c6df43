// node validate_manifests.mjs DEPLOY_DIR
// Renders every overlay under DEPLOY_DIR/overlays with `kubectl kustomize` and validates each
// object against the Kubernetes OpenAPI schemas (the npm package kubernetes-models), offline:
// the check `kubectl apply --dry-run=client` would make, without a server to ask. Exits 1
// naming the overlay, object and field of each problem.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
let parseAllDocuments;
try {
  ({ parseAllDocuments } = require("yaml"));
  require("kubernetes-models/v1/Pod");
} catch (e) {
  console.error(`validate_manifests: ${e.message}\n` +
                "install the test's npm packages first: bash scripts/install-deps.sh");
  process.exit(1);
}

// The model class of an object's apiVersion and kind ("v1" Pod, "apps/v1" Deployment).
function modelOf(object) {
  try {
    return require(`kubernetes-models/${object.apiVersion}/${object.kind}`)[object.kind];
  } catch {
    return undefined;
  }
}

// The problems the schemas find in one object ([] when none).
function problemsOf(object) {
  const Model = modelOf(object);
  if (Model === undefined) return [`no schema for apiVersion ${object.apiVersion} kind ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (e) {
    return [e.message];
  }
}

function render(dir) {
  try {
    return execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
  } catch (e) {
    if (e.code === "ENOENT") {
      throw new Error("kubectl is not on PATH: it renders the manifests (kubectl v1.32 with kustomize v5.5)");
    }
    throw new Error(`kubectl kustomize ${dir} failed: ${e.stderr || e.message}`);
  }
}

// The validator must see a broken object as broken, or passing says nothing.
const broken = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" },
                 spec: { replicas: "two", selector: {}, template: {} } };
if (problemsOf(broken).length === 0) {
  console.error("validate_manifests: the schemas accepted a Deployment with replicas: \"two\"");
  process.exit(1);
}

const deployDir = process.argv[2];
if (!deployDir) {
  console.error("usage: node validate_manifests.mjs DEPLOY_DIR");
  process.exit(2);
}
let failures = 0;
let checked = 0;
const overlays = readdirSync(join(deployDir, "overlays"));
for (const overlay of overlays) {
  let yaml;
  try {
    yaml = render(join(deployDir, "overlays", overlay));
  } catch (e) {
    console.error(`overlay ${overlay}: ${e.message}`);
    failures++;
    continue;
  }
  for (const doc of parseAllDocuments(yaml)) {
    if (doc.errors.length > 0) {
      console.error(`overlay ${overlay}: unreadable YAML: ${doc.errors[0].message}`);
      failures++;
      continue;
    }
    const object = doc.toJS();
    const name = `${object.kind} ${object.metadata?.namespace ?? ""}/${object.metadata?.name}`;
    for (const problem of problemsOf(object)) {
      console.error(`overlay ${overlay}: ${name}: ${problem}`);
      failures++;
    }
    checked++;
  }
}
console.log(`validate_manifests: ${checked} objects in ${overlays.length} overlays, ${failures} problems`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
