-- The real-program benchmark's workload (benches/lua/README in
-- benches/README.md): what a Lua program spends its time on, in one run of
-- a few hundred milliseconds natively. Each part returns an integer; the
-- script returns their sum, which every runner reports as its check value,
-- so the three builds must compute the same thing. Nothing here depends on
-- hash order, time or randomness.
local scale = ...
scale = scale or 1

-- A deterministic generator (a closure over its state).
local function lcg(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return s % n
  end
end

-- Objects through metatables: method calls, field access, allocation.
local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end
function Vec.__add(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
function Vec:scale(k) return Vec.new(self.x * k, self.y * k) end
function Vec:dot(o) return self.x * o.x + self.y * o.y end

local function objects(n)
  local rand = lcg(7)
  local acc = Vec.new(0, 0)
  local dots = 0
  for _ = 1, n do
    local v = Vec.new(rand(1000) - 500, rand(1000) - 500)
    acc = acc + v:scale(3)
    dots = (dots + v:dot(acc)) % 1000000007
  end
  return dots + acc.x + acc.y
end

-- Tables as arrays and as maps: insertion, lookup, sort with a comparator.
local function tables(n)
  local rand = lcg(11)
  local arr = {}
  for i = 1, n do arr[i] = rand(100000) end
  table.sort(arr, function(a, b) return a > b end)
  local map = {}
  for i = 1, n do
    local k = arr[i] % 4099
    map[k] = (map[k] or 0) + i
  end
  local sum = 0
  for k = 0, 4098 do
    local v = map[k]
    if v then sum = (sum + k * v) % 1000000007 end
  end
  local records = {}
  for i = 1, n // 4 do
    records[i] = { id = i, key = arr[i] % 97, name = "r" .. (i % 13) }
  end
  table.sort(records, function(a, b)
    if a.key ~= b.key then return a.key < b.key end
    return a.id > b.id
  end)
  for i = 1, #records, 7 do sum = sum + records[i].id end
  return sum
end

-- Strings: building, concatenation, formatting, pattern matching, interning.
local function strings(n)
  local rand = lcg(13)
  local syllables = { "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze" }
  local words = {}
  for i = 1, n do
    local parts = {}
    for j = 1, 1 + rand(4) do parts[j] = syllables[1 + rand(#syllables)] end
    words[i] = table.concat(parts)
  end
  local counts, distinct = {}, 0
  for i = 1, n do
    local w = words[i]
    local c = counts[w]
    if not c then distinct = distinct + 1 end
    counts[w] = (c or 0) + 1
  end
  local text = table.concat(words, " ", 1, math.min(n, 3000))
  local vowels = select(2, text:gsub("[aeiou]", ""))
  local caps = text:gsub("(%w+)", function(w) return w:sub(1, 1):upper() .. w:sub(2) end)
  local found = 0
  for w in caps:gmatch("K%a+") do found = found + #w end
  local formatted = 0
  for i = 1, n // 10 do
    local s = string.format("%05d:%s:%.3f", i, words[i], i / 7)
    formatted = formatted + #s + s:byte(3)
  end
  local rev = 0
  for i = 1, n // 10 do rev = rev + (words[i]:reverse():find("a", 1, true) or 0) end
  return distinct + vowels + found + formatted + rev + #caps
end

-- Closures and higher-order functions.
local function map(t, f) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function filter(t, p) local r = {} for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end return r end
local function reduce(t, f, acc) for i = 1, #t do acc = f(acc, t[i]) end return acc end
local function compose(f, g) return function(x) return f(g(x)) end end

local function closures(n)
  local xs = {}
  for i = 1, 1000 do xs[i] = i end
  local total = 0
  for round = 1, n do
    local k = round % 17
    local add = function(x) return x + k end
    local sq = function(x) return x * x % 65521 end
    local ys = map(xs, compose(sq, add))
    local zs = filter(ys, function(y) return y % 3 == k % 3 end)
    total = (total + reduce(zs, function(a, b) return a + b end, 0)) % 1000000007
  end
  local counters = {}
  for i = 1, 100 do
    local c = 0
    counters[i] = function() c = c + i return c end
  end
  for _ = 1, n * 10 do
    for i = 1, 100, 9 do total = total + counters[i]() % 7 end
  end
  return total
end

-- Arithmetic: integer recursion, a float loop, bit operations.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function arithmetic(n)
  local iters = 0
  for py = 0, n - 1 do
    local ci = py * 2.0 / n - 1.0
    for px = 0, n - 1 do
      local cr = px * 3.0 / n - 2.0
      local zr, zi, k = 0.0, 0.0, 0
      while k < 50 and zr * zr + zi * zi <= 4.0 do
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        k = k + 1
      end
      iters = iters + k
    end
  end
  local h = 2166136261
  for i = 1, n * 200 do h = ((h ~ (i & 0xff)) * 16777619) & 0xffffffff end
  return iters + h + fib(24)
end

local sum = objects(120000 * scale)
  + tables(60000 * scale)
  + strings(40000 * scale)
  + closures(120 * scale)
  + arithmetic(220 * scale)
return sum
