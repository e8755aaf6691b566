# profannotate's disassembler, capstone, is required (the Makefile's
# REQUIRED_LIBS stops the build without it, naming libcapstone-dev):
# profannotate links it (LIBS_profannotate), and no other tool does.
