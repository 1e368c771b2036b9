import express from "express";
import helmet from "helmet";
import cors from "cors";
import { pinoHttp } from "pino-http";
import { logger } from "./logger.js";
import { invoicesRouter } from "./routes/invoices.js";
import { errorHandler } from "./middleware/error.js";

const app = express();
app.use(helmet());
app.use(cors());
app.use(express.json({ limit: "200kb" }));
app.use(pinoHttp({ logger }));

app.use("/invoices", invoicesRouter);
app.use(errorHandler);

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => logger.info({ port }, "billing-api listening"));
