// ax-bench: vulnerable CWE-918 — Express profile route downloads the avatar from the URL the client posts
import { writeFile } from "node:fs/promises";
import path from "node:path";
import axios from "axios";
import express from "express";

const AVATAR_DIR = "/srv/static/avatars";
const DEFAULT_AVATAR_URL = "https://cdn.example.com/avatars/default.png";
const router = express.Router();
router.use(express.json());

router.post("/profile/avatar", async (req, res, next) => {
  try {
    const source = req.body.avatarUrl || DEFAULT_AVATAR_URL;
    const response = await axios.get(source, { responseType: "arraybuffer", timeout: 5000, maxContentLength: 2000000 }); // ax-bench: sink
    await writeFile(path.join(AVATAR_DIR, `${req.user.id}.png`), response.data);
    res.status(204).end();
  } catch (err) {
    next(err);
  }
});

export default router;
