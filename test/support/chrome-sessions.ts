/** Chrome sessions through a grid with the npm selenium-webdriver client, as a user's test opens them. */
import { Builder, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';

/**
 * The arguments a client must give Chromium itself where the grid does not add them (ECS tasks, EKS pods):
 * headless on this display-less machine, and no sandbox, which Chromium as root needs.
 */
export function headlessChromeOptions(): ChromeOptions {
  const options = new ChromeOptions();
  options.addArguments('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage');
  return options;
}

/** A new Chrome session through the grid at `url`. */
export function chromeSession(url: string, options: ChromeOptions): Promise<WebDriver> {
  return new Builder().usingServer(url).forBrowser('chrome').setChromeOptions(options).build();
}
