'use strict';

const path = require('path');
const express = require('express');
const helmet = require('helmet');
const cors = require('cors');
const serveIndex = require('serve-index');
const session = require('express-session');
const errorhandler = require('errorhandler');

const products = require('./routes/products');
const account = require('./routes/account');
const uploads = require('./routes/uploads');
const { logger } = require('./logger');

const app = express();
app.disable('x-powered-by');
app.set('trust proxy', true);

app.use(helmet({ contentSecurityPolicy: false }));
app.use(helmet.referrerPolicy({ policy: 'strict-origin-when-cross-origin' }));

app.use(express.json({ limit: '50mb' }));
app.use(express.urlencoded({ extended: false, limit: '100kb' }));

app.use(
  session({
    secret: process.env.SESSION_SECRET,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, secure: true, sameSite: 'lax' },
  }),
);

const corsOptions = { origin: true, credentials: true };
app.use('/api/partner', cors(corsOptions));
app.use('/api/public', cors({ origin: ['https://shop.example.com', 'https://admin.example.com'] }));

app.use('/static', express.static(path.join(__dirname, '..', 'client', 'dist')));
app.use('/exports', express.static(path.join(__dirname, 'exports'), { dotfiles: 'allow' }));
app.use('/exports', serveIndex(path.join(__dirname, 'exports')));

app.use('/api/products', products);
app.use('/api/account', account);
app.use('/api/uploads', uploads);

if (process.env.NODE_ENV === 'development') {
  app.use(errorhandler());
}

app.use((err, req, res, next) => {
  logger.error({ err, path: req.path }, 'request failed');
  res.status(err.status || 500).json({ error: 'Something went wrong', requestId: req.id });
});

module.exports = app;
