// ax-bench: safe CWE-943 — Express password reset coerces the body's email and token with String() before the MongoDB filter
import bcrypt from "bcrypt";
import express from "express";
import { MongoClient } from "mongodb";

const client = new MongoClient(process.env.MONGO_URL);
const users = client.db("app").collection("users");
const router = express.Router();
router.use(express.json());

router.post("/password/reset", async (req, res) => {
  const { email, token, password } = req.body;
  if (!email || !token || typeof password !== "string" || password.length < 12) {
    return res.status(400).json({ error: "email, token and a 12+ character password are required" });
  }
  const user = await users.findOne({ email: String(email), resetToken: String(token), resetExpires: { $gt: new Date() } }); // ax-bench: sink
  if (!user) {
    return res.status(400).json({ error: "invalid or expired token" });
  }
  const hash = await bcrypt.hash(password, 12);
  await users.updateOne({ _id: user._id }, { $set: { passwordHash: hash }, $unset: { resetToken: "", resetExpires: "" } });
  return res.status(204).end();
});

export default router;
