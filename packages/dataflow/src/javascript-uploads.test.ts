/**
 * Uploaded files (multer, express-fileupload): the client chooses an upload's name, type and
 * contents, the server chooses where it is stored. Reading the stored path is not a traversal;
 * building a path from the client's file name is.
 */
import { describe, expect, it } from "@jest/globals";
import { foundIn } from "../test/module-twins";

const handler = (read: string) => ({
  "routes/uploads.js": `
    const fs = require("fs");
    const path = require("path");
    const multer = require("multer");
    const upload = multer({ dest: "/var/uploads", limits: { fileSize: 1 << 20 } });
    module.exports = (app) => {
      app.post("/avatar", upload.single("avatar"), (req, res) => {
        ${read}
        stream.pipe(res);
      });
    };
  `,
});

const traversal = (read: string) => foundIn(handler(read)).filter((f) => f.cwe === "CWE-22");

describe("uploaded files as a source", () => {
  it.each([
    ["multer's stored path", "const stream = fs.createReadStream(req.file.path);"],
    ["a stored path of several files", "const stream = fs.createReadStream(req.files[0].path);"],
    ["express-fileupload's temporary file", "const stream = fs.createReadStream(req.files.avatar.tempFilePath);"],
  ])("is silent for %s", (_name, read) => {
    expect(traversal(read)).toEqual([]);
  });

  it.each([
    ["the client's file name", `const stream = fs.createReadStream(path.join("/var/uploads", req.file.originalname));`],
    ["express-fileupload's name", `const stream = fs.createReadStream("/var/uploads/" + req.files.avatar.name);`],
  ])("reports a path built from %s", (_name, read) => {
    expect(traversal(read)).toEqual([expect.objectContaining({ file: "routes/uploads.js", line: 7 })]);
  });
});
