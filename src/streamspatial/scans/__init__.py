"""Real scans: ScanNet, ARKitScenes and ScanNet++ read into the records the generators take.

S3-Bench's real split (§3.2, App. 3) is built from ScanNet, ScanNet++ and ARKitScenes: from
each scan's 3D annotations it derives object boxes and frame-level visibility "through
projection and occlusion calculations", normalises the video to 640×480 at 24 fps and runs the
same templates as on simulated scenes.  This room does the same with the simulator's own
generators:

* :mod:`.scannet`, :mod:`.arkitscenes`, :mod:`.scannetpp` read each dataset's published
  layout into one :class:`~.types.Scan` (mesh with instance labels, boxes, intrinsics, a pose
  and a depth map per frame);
* :mod:`.visibility` projects every instance's surface into each frame with a depth test
  against the frame's depth map (:mod:`.raster` rasterises the mesh);
* :mod:`.episode` turns a scan into the simulator's episode record (house, per-frame
  visibility), :mod:`.video` writes its 640×480, 24 fps video;
* :mod:`.build` runs the question generators on it (``streamspatial scans build``), and
  :mod:`.vsimeta` the box-only questions of VSI-Bench's released scene metadata;
* :mod:`.export` writes a simulator benchmark's walks in each dataset's layout
  (``streamspatial scans export``), the exact ground truth the readers are tested against.

It sits above the generators (``sim``) and below ``api`` and ``cli``.
"""
