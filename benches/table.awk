# Joins the RESULT lines of compare.sh's columns into one table.
# usage: awk -f table.awk results/ours.txt results/wasmtime.txt results/native.txt results/native-vec.txt
# With -v cols="A B C D" the four columns are results/A.txt... instead, and
# the ratios A/B, A/C, A/D (wasm64.sh: ours64 against the others).
# Each line: RESULT <case> <value> <unit> <check>, one per round and column
# (the rounds interleave the columns, so the k-th line of a case in two
# columns comes from the same round).
#
# A time cell is the minimum over the rounds and, in parentheses, the spread
# (maximum / minimum). A ratio cell is the ratio of the two minima and, in
# parentheses, the spread of the per-round ratios (the largest round's
# ratio / the smallest's). A geomean is that of the ratios of minima, and its
# spread that of the per-round geomeans. Groups, in this order: the real
# programs' runs (NAME:run: the headline), their compiles (NAME:compile),
# the kernels (kernel:NAME, diagnostics), and the C API overheads.
# Exits 1 if two lines of a case, in any columns, report different checks.

$1 == "RESULT" {
  col = FILENAME
  sub(/.*\//, "", col)
  sub(/\.txt$/, "", col)
  c = $2
  if (!(c in unit)) { order[++ncases] = c; unit[c] = $4 }
  n = ++count[c, col]
  sample[c, col, n] = $3
  if ((c in check) && check[c] != $5) bad[c] = 1
  check[c] = $5
}

function group_of(c) {
  if (c ~ /^kernel:/) return "kernels"
  if (c ~ /:run$/) return "programs"
  if (c ~ /:compile$/) return "compile"
  return "overhead"
}

function minimum(c, col,    i, m) {
  m = ""
  for (i = 1; i <= count[c, col]; i++) if (m == "" || sample[c, col, i] + 0 < m + 0) m = sample[c, col, i]
  return m
}

function maximum(c, col,    i, m) {
  m = ""
  for (i = 1; i <= count[c, col]; i++) if (m == "" || sample[c, col, i] + 0 > m + 0) m = sample[c, col, i]
  return m
}

function fmt(v) { return v == "" ? "-" : sprintf("%.4g", v) }
function spread_fmt(v) { return v == "" ? "" : sprintf(" (%.2f)", v) }

# A time cell: minimum (spread).
function time_cell(c, col,    lo) {
  lo = minimum(c, col)
  if (lo == "") return "-"
  return fmt(lo) (lo > 0 ? spread_fmt(maximum(c, col) / lo) : "")
}

# A ratio cell of a over b: ratio of minima (spread of per-round ratios);
# also adds the case's ratios to its group's geomean, per round and overall.
function ratio_cell(c, a, b, g,    la, lb, r, i, n, lo, hi, key, x) {
  la = minimum(c, a); lb = minimum(c, b)
  if (la == "" || lb == "" || lb <= 0 || la <= 0) return "-"
  r = la / lb
  key = g SUBSEP a SUBSEP b
  gsum[key] += log(r); gcount[key]++
  n = count[c, a] < count[c, b] ? count[c, a] : count[c, b]
  lo = hi = ""
  for (i = 1; i <= n; i++) {
    if (sample[c, b, i] <= 0 || sample[c, a, i] <= 0) continue
    x = sample[c, a, i] / sample[c, b, i]
    rsum[key, i] += log(x); rcount[key, i]++
    if (lo == "" || x < lo) lo = x
    if (hi == "" || x > hi) hi = x
  }
  if (n > rounds[key]) rounds[key] = n
  return fmt(r) (lo != "" ? spread_fmt(hi / lo) : "")
}

# A group's geomean cell: geomean of the ratios of minima (spread of the
# per-round geomeans, over the rounds in which every case of it ran).
function geomean_cell(g, a, b,    key, i, lo, hi, x) {
  key = g SUBSEP a SUBSEP b
  if (!gcount[key]) return "-"
  lo = hi = ""
  for (i = 1; i <= rounds[key]; i++) {
    if (rcount[key, i] != gcount[key]) continue
    x = exp(rsum[key, i] / rcount[key, i])
    if (lo == "" || x < lo) lo = x
    if (hi == "" || x > hi) hi = x
  }
  return fmt(exp(gsum[key] / gcount[key])) (lo != "" ? spread_fmt(hi / lo) : "")
}

function row(label, u, o, w, n, v, ow, on, ov) {
  printf "%-22s %-9s %16s %16s %16s %16s %15s %15s %15s\n", label, u, o, w, n, v, ow, on, ov
}

END {
  split(cols != "" ? cols : "ours wasmtime native native-vec", cn, " ")
  row("case", "unit", cn[1], cn[2], cn[3], cn[4], cn[1] "/" cn[2], cn[1] "/" cn[3], cn[1] "/" cn[4])
  split("programs compile kernels overhead", groups, " ")
  for (k = 1; k <= 4; k++) {
    g = groups[k]
    any = 0
    for (i = 1; i <= ncases; i++) {
      c = order[i]
      if (group_of(c) != g) continue
      any = 1
      row(c, unit[c], time_cell(c, cn[1]), time_cell(c, cn[2]), time_cell(c, cn[3]),
          time_cell(c, cn[4]), ratio_cell(c, cn[1], cn[2], g), ratio_cell(c, cn[1], cn[3], g),
          ratio_cell(c, cn[1], cn[4], g))
      if (c in bad) print "    CHECK MISMATCH: the columns disagree on " c
    }
    if (any)
      row("geomean (" g ")", "", "", "", "", "", geomean_cell(g, cn[1], cn[2]),
          geomean_cell(g, cn[1], cn[3]), geomean_cell(g, cn[1], cn[4]))
  }
  for (c in bad) { print "ERROR: columns disagree on the result of " c; failed = 1 }
  exit failed
}
