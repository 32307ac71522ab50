-- The default scene: the suspension bridge. Run `springbox scene.lua` for another one.
return require "bridge"
