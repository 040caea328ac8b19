# Joins the RESULT lines of compare.sh's columns into one table.
# usage: awk -f table.awk results/ours.txt results/wasmtime.txt results/native.txt
# Each line: RESULT <case> <value> <unit> <check>; a case measured several
# times (one line per round) shows the median. Kernels and overhead cases get
# geometric means; a real program's cases (NAME:compile, NAME:run,
# NAME:rerun...) stand alone. Exits 1 if two lines of a case,
# in any columns, report different check values.

$1 == "RESULT" {
  col = FILENAME
  sub(/.*\//, "", col)
  sub(/\.txt$/, "", col)
  c = $2
  if (!(c in unit)) { order[++ncases] = c; unit[c] = $4 }
  samples[c, col] = (c, col) in samples ? samples[c, col] " " $3 : $3
  if ((c in check) && check[c] != $5) bad[c] = 1
  check[c] = $5
}

# Median of a space-separated list of numbers ("" if none).
function median(list,    v, n, i, j, t) {
  if (list == "") return ""
  n = split(list, v, " ")
  for (i = 2; i <= n; i++)  # insertion sort: a handful of samples
    for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

function cell(v) { return v == "" ? "-" : sprintf("%.4g", v) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "" : a / b }
function gm_add(key, r) { if (r != "" && r > 0) { gsum[key] += log(r); gcount[key]++ } }
function gm(key) { return gcount[key] ? exp(gsum[key] / gcount[key]) : "" }
function row(label, u, o, w, n, ow, on, wn, note) {
  printf "%-20s %-9s %10s %10s %10s %13s %11s %15s %s\n", label, u, o, w, n, ow, on, wn, note
}
function geomeans(group) {
  row("geomean (" group ")", "", "", "", "", cell(gm(group "ow")), cell(gm(group "on")), cell(gm(group "wn")), "")
}

END {
  row("case", "unit", "ours", "wasmtime", "native", "ours/wasmtime", "ours/native", "wasmtime/native", "")
  group = ""
  for (i = 1; i <= ncases; i++) {
    c = order[i]
    g = (c ~ /^kernel:/) ? "kernels" : (c ~ /:/) ? "program" : "overhead"
    if (group != "" && g != group && group != "program") geomeans(group)
    group = g
    o = median(samples[c, "ours"]); w = median(samples[c, "wasmtime"]); n = median(samples[c, "native"])
    ow = ratio(o, w); on = ratio(o, n); wn = ratio(w, n)
    gm_add(g "ow", ow); gm_add(g "on", on); gm_add(g "wn", wn)
    row(c, unit[c], cell(o), cell(w), cell(n), cell(ow), cell(on), cell(wn), (c in bad) ? "CHECK MISMATCH" : "")
  }
  if (group != "" && group != "program") geomeans(group)
  for (c in bad) { print "ERROR: columns disagree on the result of " c; failed = 1 }
  exit failed
}
