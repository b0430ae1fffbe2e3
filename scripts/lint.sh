#!/usr/bin/env bash
# Lints the committed files: shellcheck on the shell scripts (*.sh, and files whose
# shebang names sh or bash), flake8 on the Python (*.py, and python shebangs; settings
# in .flake8), and the .editorconfig rules on every file (scripts/check_editorconfig.py).
# Prints each finding; exits 1 if there was any (or a linter is missing), else 0.
# A ctest test (label "lint") runs it: scripts/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -type f -not -path './.git/*' -not -path './.deps/*' \
    -not -path './build*' -not -name '*.pyc' | sed 's|^\./||' | sort)
fi

shell_files=()
python_files=()
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  case "$file" in
    fuzz/corpus/*) continue ;;  # fuzzer inputs, not code
    *.sh) shell_files+=("$file"); continue ;;
    *.py) python_files+=("$file"); continue ;;
  esac
  first_line=""
  IFS= read -r first_line <"$file" 2>/dev/null || true
  case "$first_line" in
    '#!'*python*) python_files+=("$file") ;;
    '#!'*[/\ ]sh | '#!'*[/\ ]sh\ * | '#!'*bash*) shell_files+=("$file") ;;
  esac
done

failed=0
missing() {
  echo "lint: $1 is not installed: apt-get install $2 (./scripts/install-deps.sh --test)"
  failed=1
}

echo "== shellcheck (${#shell_files[@]} scripts) =="
if command -v shellcheck >/dev/null; then
  shellcheck --format=gcc "${shell_files[@]}" || failed=1
else
  missing shellcheck shellcheck
fi

echo "== flake8 (${#python_files[@]} files) =="
if command -v flake8 >/dev/null; then
  flake8 "${python_files[@]}" || failed=1
else
  missing flake8 flake8
fi

echo "== editorconfig (${#files[@]} files) =="
python3 scripts/check_editorconfig.py . || failed=1

if [ "$failed" -ne 0 ]; then
  echo "lint: FAILED (findings above), $((SECONDS - start)) s"
  exit 1
fi
echo "lint: no findings, $((SECONDS - start)) s"
