-- Prints each source file's lines and its first sentence: a map of the code for a newcomer.
--   lua5.4 tests/source_map.lua [ROOT] [--write | --check]
-- Every file opens with a comment that says what it holds and none is over 900 lines, no header
-- inside src/ over 250, and struct sb_world, built from parts, under 100: one that is not so is
-- named, and the exit status is 1. --write puts the map (each file and its sentence) into
-- docs/architecture.md between its markers; --check fails where the map there is not the code's.
local house = dofile((arg[0]:match("^(.*)/") or ".") .. "/house.lua")
local mode = arg[2]
local doc_path, begin_mark, end_mark = "docs/architecture.md", "<!-- source map: lua5.4 tests/source_map.lua . --write -->\n",
  "<!-- end of the source map -->"
local map = {}
local dirs = { "include/springbox", "src/core", "src/lua", "src/app", "web" }

-- the comment a file opens with (after a #! line and blank lines), as one line of text
local function opening(text)
  local head = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    local said = line:match("^%s*//+%s?(.*)$") or line:match("^%-%-+%s?(.*)$")
    if said and said ~= "" then
      head[#head + 1] = said
    elseif #head > 0 or not line:match("^%s*$") and not line:match("^#!") then
      break
    end
  end
  return table.concat(head, " ")
end

for _, dir in ipairs(dirs) do
  local pattern = dir == "web" and "%.[chj]s?$" or "%.[ch]p?p?$"
  for _, name in ipairs(house.files(dir, pattern)) do
    local path = dir .. "/" .. name
    local text = house.read(path)
    local lines = select(2, text:gsub("\n", ""))
    local sentence = opening(text):match("^(.-%.)%s") or opening(text)
    if #sentence > 110 then sentence = sentence:sub(1, 107) .. "..." end
    if sentence == "" then
      house.fail(path .. " does not open with a sentence saying what it holds")
      sentence = "(NO OPENING SENTENCE)"
    end
    if not mode then print(string.format("%-40s %5d  %s", path, lines, sentence)) end
    map[#map + 1] = string.format("%-36s %s", path, sentence)
    local most = (name:match("%.h$") and dir:match("^src/")) and 250 or 900
    if lines > most then house.fail(string.format("%s is %d lines, over %d", path, lines, most)) end
    if path == "src/core/world_internal.h" then
      local body = text:match("\nstruct sb_world {\n(.-\n)};")
      local members = body and select(2, body:gsub("\n", "")) or math.huge
      if members >= 100 then house.fail(string.format("struct sb_world is %s lines, over 99", members)) end
    end
  end
end

local block = "```\n" .. table.concat(map, "\n") .. "\n```\n"
if mode == "--write" or mode == "--check" then
  local doc = house.read(doc_path) or ""
  local first, last = doc:find(begin_mark, 1, true)
  local stop = last and doc:find(end_mark, last + 1, true)
  if not stop then
    house.fail(doc_path .. " has no source map between its markers")
  elseif mode == "--check" and doc:sub(last + 1, stop - 1) ~= block then
    house.fail(doc_path .. "'s source map is not the code's: run lua5.4 tests/source_map.lua . --write")
  elseif mode == "--write" then
    local f = assert(io.open(house.root .. "/" .. doc_path, "w"))
    f:write(doc:sub(1, last), block, doc:sub(stop))
    f:close()
  end
end
house.finish()
