// node dockerfile_check.mjs DOCKERFILE COLLECT_SCRIPT BINARY...
// No container engine runs here, so the image is checked statically: every base image pinned
// by a tag or digest; a runtime stage that starts FROM scratch, runs nothing and takes only
// the tree collect-runtime.sh lays out; a numeric non-root USER. Then the collect script runs
// on the tested binaries, as the build stage runs it, and the tree must hold every shared
// library ldd resolves, no package manager, shell or compiler, and a binary that starts from
// it alone (chroot when root, else its own dynamic loader and libraries).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

const [dockerfile, collect, ...binaries] = process.argv.slice(2);
if (!dockerfile || !collect || binaries.length === 0) {
  console.error("usage: node dockerfile_check.mjs DOCKERFILE COLLECT_SCRIPT BINARY...");
  process.exit(2);
}
// Instructions, continuation lines joined, comments dropped: [{line, op, args}].
function parse(text) {
  const out = [];
  let pending = "";
  let startLine = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) return;
    if (line.startsWith("#")) return;  // a comment inside a continued instruction
    if (pending === "") startLine = i + 1;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      return;
    }
    const full = (pending + line).trim();
    pending = "";
    const space = full.search(/\s/);
    out.push({ line: startLine, op: full.slice(0, space).toUpperCase(), args: full.slice(space + 1).trim() });
  });
  return out;
}

// What is wrong with a Dockerfile's text, read statically; `collectedBinaries` are the ones
// the build stage must collect. Returns the problems and the stages.
function checkText(text, collectedBinaries) {
  const problems = [];
  const problem = (p) => problems.push(p);
  const instructions = parse(text);
  const stages = [];
  for (const ins of instructions) {
    if (ins.op === "FROM") {
      const [image, as, name] = ins.args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === "AS" ? name : undefined, line: ins.line, body: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].body.push(ins);
    } else if (ins.op !== "ARG") {
      problem(`line ${ins.line}: ${ins.op} before the first FROM`);
    }
  }
  if (stages.length < 2) problem("expected a build stage and a runtime stage (multi-stage build)");

  for (const s of stages) {
    if (s.image === "scratch") continue;
    const digest = s.image.includes("@sha256:");
    const tag = s.image.slice(s.image.lastIndexOf("/") + 1).split(":")[1];
    if (!digest && (tag === undefined || tag === "latest")) {
      problem(`line ${s.line}: FROM ${s.image} is not pinned by a tag or digest`);
    }
  }

  const runtime = stages[stages.length - 1] ?? { body: [], image: "" };
  const build = stages.find((s) => s !== runtime && s.name !== undefined);
  if (runtime.image !== "scratch") {
    problem(`line ${runtime.line}: the runtime stage starts FROM ${runtime.image}, not scratch: ` +
            "it would carry that image's package manager and shell");
  }
  for (const ins of runtime.body) {
    if (ins.op === "RUN") problem(`line ${ins.line}: RUN in the runtime stage (it has nothing to run with)`);
    if ((ins.op === "COPY" || ins.op === "ADD") && !(build && ins.args.startsWith(`--from=${build.name} /rootfs `))) {
      problem(`line ${ins.line}: the runtime stage takes "${ins.args}"; only --from=<build> /rootfs belongs there`);
    }
  }
  const user = runtime.body.filter((i) => i.op === "USER").pop();
  if (!user) {
    problem("the runtime stage sets no USER: it would run as root");
  } else if (!/^[0-9]+(:[0-9]+)?$/.test(user.args) || Number(user.args.split(":")[0]) === 0) {
    problem(`line ${user.line}: USER ${user.args}: must be a numeric id other than 0 (runAsNonRoot checks the id)`);
  }
  const collected = build?.body.find((i) => i.op === "RUN" && i.args.includes("deploy/collect-runtime.sh /rootfs"));
  if (!collected) problem("the build stage does not run deploy/collect-runtime.sh /rootfs");
  const entry = runtime.body.filter((i) => i.op === "ENTRYPOINT").pop();
  let entryBinary;
  try {
    entryBinary = entry ? JSON.parse(entry.args)[0] : undefined;
  } catch {
    entryBinary = undefined;  // the shell form: there is no shell to run it
  }
  if (entryBinary !== "/usr/local/bin/gpu-autoscaler") {
    problem(`ENTRYPOINT ${entry?.args}: expected ["/usr/local/bin/gpu-autoscaler"]`);
  }
  for (const b of collectedBinaries) {
    if (collected && !collected.args.includes(`/${basename(b)}`)) {
      problem(`the build stage does not collect ${basename(b)}`);
    }
  }
  return { problems, stages };
}

// The checker must see a bad Dockerfile as bad, or passing says nothing.
const bad = checkText([
  "FROM debian AS build",
  "RUN make",
  "FROM debian:12-slim",
  "RUN apt-get install -y curl",
  "COPY . /src",
  "USER root",
  'ENTRYPOINT ["/bin/sh"]',
].join("\n"), []);
for (const expected of ["FROM debian is not pinned", "not scratch", "RUN in the runtime stage",
                        "only --from=<build> /rootfs belongs there", "USER root",
                        "does not run deploy/collect-runtime.sh", "ENTRYPOINT"]) {
  if (!bad.problems.some((p) => p.includes(expected))) {
    console.error(`dockerfile_check: the self-test's bad Dockerfile was not told "${expected}"`);
    process.exit(1);
  }
}

const checked = checkText(readFileSync(dockerfile, "utf8"), binaries);
const problems = checked.problems;
const stages = checked.stages;
const problem = (text) => problems.push(text);

// The runtime tree, made from the tested binaries as the build stage makes it.
const root = mkdtempSync(join(tmpdir(), "gpua-rootfs-"));
try {
  const run = spawnSync("sh", [collect, root, ...binaries], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`${collect} failed: ${run.stderr}`);
  for (const b of binaries) {
    const ldd = execFileSync("ldd", [b], { encoding: "utf8" });
    for (const line of ldd.split("\n")) {
      const m = line.match(/=>\s+(\/\S+)/) ?? line.match(/^\s*(\/\S+)\s+\(/);
      if (!m) continue;
      if (!existsSync(join(root, m[1])) || !statSync(join(root, m[1])).isFile()) {
        problem(`${basename(b)} needs ${m[1]} (ldd), which the runtime stage lacks`);
      }
    }
  }
  const forbidden = ["apt", "apt-get", "dpkg", "apk", "yum", "dnf", "rpm", "sh", "bash", "dash",
                     "gcc", "g++", "cc", "c++", "clang", "make", "cmake"];
  const all = execFileSync("find", [root, "-type", "f"], { encoding: "utf8" }).split("\n");
  for (const f of all) {
    if (forbidden.includes(basename(f))) problem(`the runtime stage carries ${f.slice(root.length)}`);
  }
  const binary = join(root, "usr/local/bin/gpu-autoscaler");
  const started = process.getuid() === 0
      ? spawnSync("chroot", [root, "/usr/local/bin/gpu-autoscaler", "--help"], { encoding: "utf8" })
      : spawnSync(join(root, "lib64/ld-linux-x86-64.so.2"),
                  ["--inhibit-cache", "--library-path",
                   [join(root, "lib/x86_64-linux-gnu"), join(root, "usr/lib/x86_64-linux-gnu")].join(":"),
                   binary, "--help"], { encoding: "utf8" });
  if (started.status !== 0 || !started.stdout.includes("--cloud-provider")) {
    problem(`gpu-autoscaler --help did not run from the runtime tree alone: ${started.stderr || started.error}`);
  }
  console.log(`dockerfile_check: ${stages.length} stages, runtime tree of ${all.length - 1} files, ` +
              `started ${process.getuid() === 0 ? "in a chroot" : "with its own loader"}`);
} catch (e) {
  problem(e.message);
} finally {
  rmSync(root, { recursive: true, force: true });
}

for (const p of problems) console.error(`dockerfile_check: ${p}`);
process.exit(problems.length === 0 ? 0 : 1);
