# The shipped networks built into the program: configures selfplay/player/nets_builtin.S
# (assembler .incbin of each net of CHESSVAR_NETS_DIR) into the build tree and appends it
# to the list named by out_var. Used by the main build and the fuzz build alike.
function(chessvar_builtin_nets root out_var)
  set(CHESSVAR_NETS_DIR "${root}/selfplay/nets")
  set(asm "${CMAKE_CURRENT_BINARY_DIR}/nets_builtin.S")
  configure_file("${root}/selfplay/player/nets_builtin.S.in" "${asm}" @ONLY)
  # Reassemble when a network changes.
  file(GLOB nets "${CHESSVAR_NETS_DIR}/*.nnue")
  set_source_files_properties("${asm}" PROPERTIES OBJECT_DEPENDS "${nets}")
  set(${out_var} ${${out_var}} "${asm}" PARENT_SCOPE)
endfunction()
