#!/usr/bin/env bash
# Size limits of the sources (issue 24, "Done when"): a file is one idea, a function fits on a screen or two.
#   1. No Swift file under Sources/ has more than 500 lines, except the data tables listed in `exempt` below.
#   2. No function or initializer under Sources/VolumeKitCore/Buttons has a body of more than 80 lines.
# Prints one line per offence on standard output (`path:line: what`) and exits 1 when there is any; prints
# nothing and exits 0 otherwise.
#
# How rule 2 is checked (an approximation, by design a simple scan rather than a parser):
#   - a declaration is a line that starts, after attributes and modifiers, with `func NAME` or `init(`/`init?(`
#     /`init!(`/`init<`; its body runs from the first `{` after it outside its parameter list (a default value
#     may be a closure) to the matching `}`, found by counting braces;
#   - a body's length is the number of lines strictly between the line of its `{` and the line of its `}`
#     (blank and comment lines included);
#   - braces inside `"…"` strings on one line and after `//` are ignored; lines inside a `"""` string are
#     skipped whole; `/* … */` comments are not understood (VolumeKit's sources use `//` and `///` only);
#   - a nested function is measured on its own and also counts toward the function around it; closures,
#     computed properties, `subscript`s and `deinit` are not measured on their own (they count toward the
#     function they are written in);
#   - a declaration with no body (a protocol requirement) is dropped at the next `}` or declaration.
#
# usage: scripts/check-sizes.sh            (from anywhere; it checks this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."

max_file_lines=500
max_body_lines=80
# Data tables: files that are one literal table, whose length is the data's, not the code's. Each with why.
exempt=(
  # One row per system sound ID (a generated table of iOS's UISounds, shared/facts/system-sounds.md §1):
  # it grows with each iOS release, and splitting it would only cut the table in arbitrary places.
  Sources/VolumeKitCore/Sounds/SystemSoundCatalogue+Data.swift
)

is_exempt() {
  local file=$1 entry
  for entry in "${exempt[@]}"; do [ "$file" = "$entry" ] && return 0; done
  return 1
}

offences=0
while IFS= read -r file; do
  is_exempt "$file" && continue
  lines=$(wc -l <"$file" | tr -d ' ')
  if [ "$lines" -gt "$max_file_lines" ]; then
    echo "$file: $lines lines (limit $max_file_lines; split it by idea, or list it in scripts/check-sizes.sh if it is a data table)"
    offences=$((offences + 1))
  fi
done < <(find Sources -name '*.swift' | LC_ALL=C sort)

bodies=$(find Sources/VolumeKitCore/Buttons -name '*.swift' | LC_ALL=C sort | while IFS= read -r file; do
  awk -v limit="$max_body_lines" -v file="$file" '
    # The line without string contents and `//` comments, so that only code braces are counted.
    function code(text) {
      gsub(/\\\\/, "", text)
      gsub(/\\"/, "", text)
      gsub(/"[^"]*"/, "\"\"", text)
      sub(/\/\/.*/, "", text)
      return text
    }
    BEGIN { depth = 0; top = 0; pending = "" }
    {
      line = $0
      # A multi-line string literal: skip its lines, opening and closing lines included.
      quotes = gsub(/"""/, "\"\"\"", line)
      if (inString) { if (quotes % 2 == 1) inString = 0; next }
      if (quotes % 2 == 1) { inString = 1; next }
      text = code(line)
      if (match(text, /^[[:space:]]*((@[A-Za-z_]+(\([^)]*\))?|public|private|fileprivate|internal|open|package|static|class|final|override|mutating|nonmutating|nonisolated|convenience|required|dynamic)[[:space:]]+)*(func[[:space:]]+[^[:space:](<]+|init[?!]?[(<])/)) {
        declaration = substr(text, RSTART, RLENGTH)
        sub(/^.*func[[:space:]]+/, "", declaration)
        sub(/^.*init/, "init", declaration)
        sub(/[(<]$/, "", declaration)
        pending = declaration
        pendingLine = NR
        parens = 0
      }
      count = length(text)
      for (i = 1; i <= count; i++) {
        c = substr(text, i, 1)
        if (pending != "" && c == "(") parens++
        if (pending != "" && c == ")") parens--
        if (c == "{") {
          depth++
          # The body opens at the first brace outside the parameter list (a default value may be a closure).
          if (pending != "" && parens == 0) {
            top++
            name[top] = pending; start[top] = NR; declared[top] = pendingLine; level[top] = depth
            pending = ""
          }
        } else if (c == "}") {
          if (pending != "" && parens == 0) pending = ""
          if (top > 0 && level[top] == depth) {
            body = NR - start[top] - 1
            if (body < 0) body = 0
            if (body > limit) {
              printf "%s:%d: %s has a body of %d lines (limit %d in VolumeKitCore/Buttons)\n", file, declared[top], name[top], body, limit
            }
            top--
          }
          depth--
        }
      }
    }
  ' "$file"
done)
if [ -n "$bodies" ]; then
  printf '%s\n' "$bodies"
  offences=$((offences + $(printf '%s\n' "$bodies" | wc -l | tr -d ' ')))
fi

if [ "$offences" -gt 0 ]; then
  echo "check-sizes: $offences offence(s) above" >&2
  exit 1
fi
