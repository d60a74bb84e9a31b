"""`shapescript run --modal GPU[:N] PROGRAM`: run a program in a container on Modal.

The parts that need no network are modules of their own (the GPU request, the upload's
selection, the image's description, the sync-back of files, the container's side), so
that they can be tested offline; `launch` joins them to the real `modal` package.
"""
