'use strict';

const fs = require('fs');
const path = require('path');
const express = require('express');
const multer = require('multer');
const unzipper = require('unzipper');

const router = express.Router();
const UPLOAD_DIR = path.join(__dirname, '..', 'uploads');
const IMPORT_DIR = path.join(__dirname, '..', 'imports');
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

const avatarUpload = multer({ dest: UPLOAD_DIR });
const imageUpload = multer({
  dest: UPLOAD_DIR,
  limits: { fileSize: 2 * 1024 * 1024, files: 1 },
  fileFilter: (req, file, cb) => cb(null, IMAGE_TYPES.has(file.mimetype)),
});

router.post('/avatar', avatarUpload.single('avatar'), (req, res) => {
  res.json({ file: req.file.filename });
});

router.post('/product-image', imageUpload.single('image'), (req, res) => {
  res.json({ file: req.file.filename });
});

router.post('/catalog-import', imageUpload.single('archive'), (req, res) => {
  fs.createReadStream(req.file.path)
    .pipe(unzipper.Parse())
    .on('entry', (entry) => {
      entry.pipe(fs.createWriteStream(path.join(IMPORT_DIR, entry.path)));
    })
    .on('close', () => res.json({ ok: true }));
});

router.post('/catalog-import-v2', imageUpload.single('archive'), (req, res) => {
  fs.createReadStream(req.file.path)
    .pipe(unzipper.Parse())
    .on('entry', (entry) => {
      const dest = path.resolve(IMPORT_DIR, entry.path);
      if (!dest.startsWith(IMPORT_DIR + path.sep)) return entry.autodrain();
      entry.pipe(fs.createWriteStream(dest));
    })
    .on('close', () => res.json({ ok: true }));
});

module.exports = router;
