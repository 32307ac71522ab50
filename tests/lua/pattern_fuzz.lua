-- Compares springbox's guarded pattern functions (the global `bounded`, from sb_pattern.c)
-- with Lua's own (`string`) on random subjects and patterns, malformed ones included:
-- every result and every error message must be the same. Run by tests/pattern_tests.c.
local seed, cases = ...
math.randomseed(seed)
local stock, mine = string, _G.bounded

local atoms = {
  "a", "b", "x", " ", "1", ".", "%a", "%d", "%s", "%w", "%A", "%S", "%p", "%x", "%l", "%u", "%c", "%g",
  "[ab]", "[^a]", "[a-c]", "[%d_]", "[]a]", "[^]b]", "[%]]", "[a-]", "%.", "%%", "%(", "()", "%b()", "%bab",
  "%f[%w]", "%f[%s]", "%f[^a]", "%1", "%2", "%0", "\0", "\xe9",
}
local broken = { "%", "[", "[a", "[^", "%b", "%ba", "%f", "%fa", "(", ")", "%9", "]" }
local quantifiers = { "", "", "", "*", "+", "-", "?" }
local subject_chars = { "a", "b", "x", " ", "1", "(", ")", "_", ".", "\0", "\xe9", "%" }

local function pick(t) return t[math.random(#t)] end

local function random_pattern()
  local parts, open = {}, 0
  if math.random() < 0.2 then parts[#parts + 1] = "^" end
  for _ = 1, math.random(0, 6) do
    local r = math.random()
    if r < 0.12 then
      parts[#parts + 1] = "("; open = open + 1
    elseif r < 0.22 and open > 0 then
      parts[#parts + 1] = ")"; open = open - 1
    elseif r < 0.26 then
      parts[#parts + 1] = pick(broken)
    else
      parts[#parts + 1] = pick(atoms) .. pick(quantifiers)
    end
  end
  if math.random() < 0.8 then parts[#parts + 1] = string.rep(")", open) end
  if math.random() < 0.15 then parts[#parts + 1] = "$" end
  return table.concat(parts)
end

local function random_subject()
  local t = {}
  for i = 1, math.random(0, 24) do t[i] = pick(subject_chars) end
  return table.concat(t)
end

-- One comparable string for a pcall's results; error messages lose the function's name,
-- which differs by where each function is installed.
local function outcome(ok, ...)
  local t = { tostring(ok) }
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if not ok and type(v) == "string" then v = v:gsub("to '[^']*'", "to ?") end
    t[#t + 1] = (math.type(v) or type(v)) .. ":" .. tostring(v)
  end
  return table.concat(t, "|")
end

local function all_matches(lib, s, p, init)
  local out = {}
  for a, b, c in lib.gmatch(s, p, init) do
    out[#out + 1] = tostring(a) .. "," .. tostring(b) .. "," .. tostring(c)
    if #out > 64 then break end
  end
  return table.concat(out, ";")
end

local replacements = {
  "<%0>", "%1", "%%", "x%2", "%", "%z", "[%1|%0]", "",
  { a = "A", [" "] = "_", b = false, x = 12, ["("] = {} },
  function(...) local n = select("#", ...); if n > 1 then return (...) .. n end return nil end,
  function(c) if c == "a" then return false end return "<" .. tostring(c) .. ">" end,
  42, true,
}

local calls, failures = 0, {}
local function compare(what, f, ...)
  calls = calls + 1
  local a = outcome(pcall(f, stock, ...))
  local b = outcome(pcall(f, mine, ...))
  if a ~= b and #failures < 10 then
    local args = {}
    for i = 1, select("#", ...) do args[#args + 1] = string.format("%q", tostring((select(i, ...)))) end
    failures[#failures + 1] =
      string.format("%s(%s)\n  stock:   %s\n  bounded: %s", what, table.concat(args, ", "), a, b)
  end
end

for _ = 1, cases do
  local s, p = random_subject(), random_pattern()
  local init = math.random() < 0.3 and math.random(-30, 30) or nil
  compare("find", function(lib, ...) return lib.find(...) end, s, p, init)
  compare("find plain", function(lib, ...) return lib.find(...) end, s, p, init or 1, true)
  compare("match", function(lib, ...) return lib.match(...) end, s, p, init)
  compare("gmatch", all_matches, s, p, init)
  local r = pick(replacements)
  local n = math.random() < 0.3 and math.random(-1, 3) or nil
  compare("gsub", function(lib, ...) return lib.gsub(...) end, s, p, r, n)
end
-- patterns that need more than the matcher's recursion allows, and many captures
compare("find", function(lib, ...) return lib.find(...) end, ("a"):rep(300), ("a?"):rep(300))
compare("find", function(lib, ...) return lib.find(...) end, ("a"):rep(40), ("(a)"):rep(33))
compare("match", function(lib, ...) return lib.match(...) end, ("a"):rep(40), ("()a"):rep(32))

if #failures > 0 then
  error(#failures .. " differences in " .. calls .. " calls:\n" .. table.concat(failures, "\n"))
end
print(string.format("%d calls, %d cases: same results and errors as Lua's own", calls, cases))
