-- Prints each source file's lines and its first sentence: a map of the code for a newcomer.
--   lua5.4 tests/source_map.lua [ROOT]
-- Every file opens with a comment that says what it holds and none is over 900 lines, no header
-- inside src/ over 250, and struct sb_world, built from parts, under 100: one that is not so is
-- named, and the exit status is 1.
local house = dofile((arg[0]:match("^(.*)/") or ".") .. "/house.lua")
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
    print(string.format("%-40s %5d  %s", path, lines, sentence))
    local most = (name:match("%.h$") and dir:match("^src/")) and 250 or 900
    if lines > most then house.fail(string.format("%s is %d lines, over %d", path, lines, most)) end
    if path == "src/core/world_internal.h" then
      local body = text:match("\nstruct sb_world {\n(.-\n)};")
      local members = body and select(2, body:gsub("\n", "")) or math.huge
      if members >= 100 then house.fail(string.format("struct sb_world is %s lines, over 99", members)) end
    end
  end
end
house.finish()
