#!/usr/bin/env bash
# The git-ultraplan demo: a plan run in a fresh temporary repository, with a
# step that passes, one that needs a retry, one whose first attempt is
# reverted, and an optional one that is skipped — then everything read back
# with plain git. Needs git-ultraplan on PATH (cargo install --locked --path .).
set -euo pipefail

if ! command -v git-ultraplan >/dev/null 2>&1; then
  echo "git-ultraplan is not on PATH; install it with: cargo install --locked --path ." >&2
  exit 1
fi

demo=$(mktemp -d "${TMPDIR:-/tmp}/ultraplan-demo.XXXXXX")
attempts="$demo/.attempts"
mkdir "$demo/repo" "$attempts"
cd "$demo/repo"
git init -q -b main
git config user.name "Demo User"
git config user.email "demo@example.com"
echo "# greeter" > README.md
git add README.md
git commit -q -m "initial commit"

cat > plan.md <<PLAN
# Greeter

## Implementation Plan

### Step 1: Write the greeting script

- **Files:** \`greet.sh\` (new)
- **Changes:** create a script that greets
  \`\`\`sh
  printf '#!/bin/sh\necho "hello, \${1:-world}"\n' > greet.sh
  chmod +x greet.sh
  \`\`\`
- **Verify:** \`./greet.sh\` → expected: \`hello, world\`
- **On failure:** revert — check the printf quoting
- **Checkpoint:** \`git commit -m "feat: add greeting script"\`

### Step 2: Add a farewell (a flaky step: passes on its second attempt)

- **Files:** \`bye.sh\` (new)
- **Changes:** the first attempt writes the wrong word
  \`\`\`sh
  n=\$(cat $attempts/step2 2>/dev/null || echo 0); n=\$((n+1)); echo \$n > $attempts/step2
  if [ \$n -ge 2 ]; then word=goodbye; else word=bye-bye; fi
  printf '#!/bin/sh\necho %s\n' "\$word" > bye.sh && chmod +x bye.sh
  \`\`\`
- **Verify:** \`./bye.sh\` → expected: \`goodbye\`
- **On failure:** retry — say goodbye, not bye-bye
- **Checkpoint:** \`git commit -m "feat: add farewell script"\`

### Step 3: Document the scripts (the first attempt breaks README.md and is reverted)

- **Files:** \`README.md\`
- **Changes:**
  \`\`\`sh
  n=\$(cat $attempts/step3 2>/dev/null || echo 0); n=\$((n+1)); echo \$n > $attempts/step3
  if [ \$n -ge 2 ]; then printf '# greeter\n\nRun ./greet.sh NAME or ./bye.sh.\n' > README.md; else : > README.md; fi
  \`\`\`
- **Verify:** \`grep -c greet.sh README.md\` → expected: \`>= 1\`
- **On failure:** revert — keep the title
- **Checkpoint:** \`git commit -m "docs: explain the scripts"\`

### Step 4: Add a man page (optional: skipped when it fails)

- **Files:** \`greet.1\` (new)
- **Changes:**
  \`\`\`sh
  echo '.TH GREET 1' > greet.1
  \`\`\`
- **Verify:** \`man -l greet.1 2>/dev/null | grep -q NAME\`
- **On failure:** skip — nice to have
- **Checkpoint:** \`git commit -m "docs: man page"\`
PLAN

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step git ultraplan check plan.md
step git ultraplan run plan.md || true
step git log --oneline
step git notes --ref=ultraplan show HEAD~1
step git ultraplan log
step git log --format=%s refs/ultraplan/plan/run
printf '\nThe demo repository is %s\n' "$demo/repo"
