// The Node the single executables carry (scripts/build/build-exe.mjs), also the bench's baseline for them.
// 25.5 or later: its own --build-sea, no postject. The same version must exist for every target.
export const EXE_NODE_VERSION = process.env.SIGN_EXE_NODE_VERSION ?? '26.10.0';
